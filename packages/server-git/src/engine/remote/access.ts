import type { HttpClient } from 'isomorphic-git';

/** Username and password (or token) for one remote, from the environment only. */
export interface Credentials {
  username: string;
  password: string;
  /** The environment variables they came from, for messages (`GIT_TOKEN`). Never their values. */
  source: string;
}

/** A remote URL that passed the checks: scheme and policy. */
export interface CheckedRemote {
  /** What isomorphic-git connects to: the URL without any user name or password in it. */
  url: string;
  /** For output and errors: the same, safe to show. */
  display: string;
}

/**
 * What the network tools get when `--allow-remote` is on: an isomorphic-git HTTP client whose every
 * request goes through the SSRF-safe policy of @mcpkit/net (https only unless a host is named with
 * --allow-host, DNS pinned, redirects re-checked, time and size limits, --proxy-url), and credentials
 * from the environment only.
 */
export interface RemoteAccess {
  http: HttpClient;
  /**
   * Checks a remote's URL (as read from the repository's config) before any network use: https, or
   * http to a host named with --allow-host; never ssh, git, file or a local path. Throws a ToolError
   * that says why and what to do, naming the remote as `name`.
   */
  check(name: string, url: string): CheckedRemote;
  /** Credentials for a URL, when the environment has some and the URL may receive them; never echoed. */
  credentials(url: string): Credentials | undefined;
  /** `text` with every secret this access knows (and any URL user-info) replaced, for output, errors and logs. */
  redact(text: string): string;
  /** A one-line hint on how credentials are given, for authentication errors. */
  readonly credentialHint: string;
  /** Closes the connection pools. */
  close(): Promise<void>;
}
