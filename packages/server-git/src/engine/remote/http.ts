/**
 * Network access for git_fetch, git_pull and git_push: isomorphic-git's HTTP client on the guarded
 * client of @mcpkit/net, the checks a remote URL must pass, and credentials from the environment.
 *
 * Credentials (never from tool input, never from the repository's config, never echoed):
 * - `GIT_TOKEN`: a token sent as the password; the user name is `GIT_USERNAME`, or `x-access-token`
 *   (what GitHub expects; GitLab and Gitea accept any user name with a personal access token).
 * - `GIT_USERNAME` with `GIT_PASSWORD`: a user name and password (or app password).
 * - `GIT_CREDENTIAL_HOSTS` (optional, comma-separated `host[:port]`): only these hosts are offered the
 *   credentials. Without it, any https host that asks (HTTP 401) is, and hosts named with --allow-host.
 * Credentials are offered only when the server asks for them (HTTP 401), only over https (or to a
 * host named with --allow-host), and never follow a redirect to another origin.
 */
import {
  type AllowedHost,
  BlockedDestinationError,
  checkProxiedName,
  checkUrl,
  createHttpClient,
  type NetworkPolicy,
  parseAllowHost,
  type Resolver,
  strictnessFor,
  systemResolver,
  urlHost,
  urlPort,
} from '@mcpkit/net';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { GitError } from '../errors.js';
import type { EngineLogger as Logger } from '../logger.js';
import type { CheckedRemote, Credentials, RemoteAccess } from './access.js';

/** The parts of the parsed CLI configuration this module reads. */
export interface RemoteConfig {
  allowPrivateNetwork?: boolean;
  allowHost?: ReadonlyArray<AllowedHost>;
  proxyUrl?: string | undefined;
}

export interface RemoteLimits {
  /** Deadline of one HTTP request, its body included. Default 10 minutes. */
  timeoutMs?: number;
  /** The largest response (a pack) accepted. Default 1 GiB. */
  maxBytes?: number;
  /** Host name resolution (tests). Default: the system resolver. */
  resolve?: Resolver;
}

/** Names of the environment variables read for credentials. */
export const CREDENTIAL_ENV = {
  token: 'GIT_TOKEN',
  username: 'GIT_USERNAME',
  password: 'GIT_PASSWORD',
  hosts: 'GIT_CREDENTIAL_HOSTS',
} as const;

const CREDENTIAL_HINT = `set ${CREDENTIAL_ENV.token} (or ${CREDENTIAL_ENV.username} and ${CREDENTIAL_ENV.password}) in the server's environment`;

/** `scheme://user:password@` → `scheme://***@` (any scheme). */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"]*@/gi;

function readCredentials(env: NodeJS.ProcessEnv): Credentials | undefined {
  const token = env[CREDENTIAL_ENV.token];
  const username = env[CREDENTIAL_ENV.username];
  const password = env[CREDENTIAL_ENV.password];
  if (token) {
    return {
      username: username || 'x-access-token',
      password: token,
      source: username ? `${CREDENTIAL_ENV.username} and ${CREDENTIAL_ENV.token}` : CREDENTIAL_ENV.token,
    };
  }
  if (username && password) return { username, password, source: `${CREDENTIAL_ENV.username} and ${CREDENTIAL_ENV.password}` };
  return undefined;
}

function readCredentialHosts(env: NodeJS.ProcessEnv): AllowedHost[] | undefined {
  const raw = env[CREDENTIAL_ENV.hosts];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .map((h) => {
      try {
        return parseAllowHost(h);
      } catch (error) {
        throw new Error(`${CREDENTIAL_ENV.hosts}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
}

/** A URL without its user info and trailing slashes, as isomorphic-git gets it. */
function cleanUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href.replace(/\/+$/, '');
}

/** Joins isomorphic-git's body (an array of buffers, or an async iterator) for the guarded client. */
async function requestBody(body: GitHttpRequest['body']): Promise<Uint8Array | AsyncIterable<Uint8Array> | undefined> {
  if (body === undefined || body === null) return undefined;
  const value = body as unknown;
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return Buffer.concat(value as Uint8Array[]);
  if (typeof (value as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function') return value as AsyncIterable<Uint8Array>;
  if (typeof (value as Iterable<Uint8Array>)[Symbol.iterator] === 'function') return Buffer.concat([...(value as Iterable<Uint8Array>)]);
  throw new Error('unsupported request body');
}

const ERROR_BODY_BYTES = 64 * 1024;

async function errorBody(body: AsyncIterableIterator<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= ERROR_BODY_BYTES) break;
    }
  } catch {
    // An error page that fails half-way is still an error page.
  }
  return Buffer.concat(parts).subarray(0, ERROR_BODY_BYTES);
}

async function* once(bytes: Uint8Array): AsyncIterableIterator<Uint8Array> {
  if (bytes.length > 0) yield bytes;
}

export function createRemoteAccess(config: RemoteConfig, env: NodeJS.ProcessEnv, logger: Logger, limits: RemoteLimits = {}): RemoteAccess {
  const policy: NetworkPolicy = {
    allowPrivateNetwork: config.allowPrivateNetwork ?? false,
    allowHosts: [...(config.allowHost ?? [])],
    name: 'mcp-server-git',
  };
  const proxyUrl = config.proxyUrl;
  const client = createHttpClient({
    policy,
    resolve: limits.resolve ?? systemResolver,
    ...(proxyUrl ? { proxyUrl } : {}),
    timeoutMs: limits.timeoutMs ?? 10 * 60_000,
    maxBytes: limits.maxBytes ?? 1024 * 1024 * 1024,
    maxRedirects: 10,
  });
  const creds = readCredentials(env);
  const credentialHosts = readCredentialHosts(env);
  if (creds) {
    logger.info(
      credentialHosts
        ? `Remote credentials from ${creds.source}, offered to ${credentialHosts.map((h) => (h.port ? `${h.host}:${h.port}` : h.host)).join(', ')} only`
        : `Remote credentials from ${creds.source}, offered to any https remote that asks; set ${CREDENTIAL_ENV.hosts} to name the hosts that may receive them`,
    );
  }
  const secrets = creds
    ? [creds.password, Buffer.from(`${creds.username}:${creds.password}`).toString('base64')].filter((s) => s.length >= 4)
    : [];

  function redact(text: string): string {
    let out = text.replace(USERINFO, '$1***@');
    for (const secret of secrets) out = out.split(secret).join('***');
    return out;
  }

  /** http: only to a host named with --allow-host (test servers, a LAN mirror); everything else https. */
  function plainHttpAllowed(url: URL): boolean {
    return url.protocol === 'http:' && strictnessFor(policy, url) === 'open';
  }

  function schemeCheck(url: URL): void {
    if (url.protocol === 'https:' || plainHttpAllowed(url)) return;
    if (url.protocol === 'http:') {
      throw new Error(
        `refused plain http to ${url.host}: mcp-server-git only uses https remotes, unless the host is named with --allow-host ${allowHostArg(url)}`,
      );
    }
    throw new Error(`refused ${url.protocol.slice(0, -1)}: mcp-server-git only uses https remotes`);
  }

  const http: HttpClient = {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const method = (req.method ?? 'GET').toUpperCase();
      const body = await requestBody(req.body);
      const res = await client.request(req.url, {
        method,
        headers: { ...(req.headers ?? {}) },
        ...(body !== undefined ? { body } : {}),
        ...(req.signal ? { signal: req.signal as AbortSignal } : {}),
        checkUrl: schemeCheck,
      });
      if (res.status >= 200 && res.status < 300) {
        return { url: res.url, method, statusCode: res.status, statusMessage: res.statusText, headers: res.headers, body: res.body };
      }
      // An error page (a 401 that isomorphic-git retries, a 404): keep its start for the message and
      // release the connection now rather than at the deadline.
      const start = await errorBody(res.body);
      await res.cancel();
      return { url: res.url, method, statusCode: res.status, statusMessage: res.statusText, headers: res.headers, body: once(start) };
    },
  };

  /** `host:port` as --allow-host takes it, an IPv6 address in brackets (`[::1]:8080`). */
  function allowHostArg(url: URL): string {
    const host = urlHost(url);
    return `${host.includes(':') ? `[${host}]` : host}:${urlPort(url)}`;
  }

  function refuse(name: string, shown: string, why: string): never {
    throw new GitError('REMOTE', `Remote '${name}' (${redact(shown)}) ${why}`);
  }

  function check(name: string, raw: string): CheckedRemote {
    const value = raw.trim();
    const httpsOnly =
      'this server (isomorphic-git) only speaks https: give the remote an https URL (git remote set-url <name> https://…), or use the git CLI for it';
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return refuse(name, value, 'is not a valid URL');
      }
      const scheme = url.protocol.slice(0, -1).toLowerCase();
      if (scheme === 'ssh' || scheme === 'git+ssh' || scheme === 'ssh+git') refuse(name, value, `uses ssh; ${httpsOnly}`);
      if (scheme === 'git') refuse(name, value, `uses the unauthenticated git:// protocol; ${httpsOnly}`);
      if (scheme === 'file') refuse(name, value, `is a local path (file://); ${httpsOnly}`);
      if (scheme !== 'https' && scheme !== 'http') refuse(name, value, `uses ${scheme}; ${httpsOnly}`);
      const clean = cleanUrl(url);
      if (url.username || url.password)
        logger.debug(`remote '${name}': the user name/password in its URL are ignored (credentials come from the environment)`);
      if (scheme === 'http' && !plainHttpAllowed(url)) {
        refuse(
          name,
          clean,
          `uses plain http, which this server refuses (code and credentials would travel unencrypted); use https, or name the host with --allow-host ${allowHostArg(url)}`,
        );
      }
      try {
        checkUrl(policy, url);
        if (proxyUrl) checkProxiedName(policy, url);
      } catch (error) {
        if (error instanceof BlockedDestinationError) refuse(name, clean, `is refused: ${error.message}`);
        throw error;
      }
      return { url: clean, display: clean };
    }
    // `<transport>::<address>` runs a git remote helper (ext:: runs any command): never.
    const helper = /^([a-z0-9][a-z0-9+.-]*)::/i.exec(value);
    if (helper) {
      refuse(
        name,
        value,
        `uses the ${helper[1]}:: transport (a git remote helper${helper[1]!.toLowerCase() === 'ext' ? ' that runs a command' : ''}), which this server refuses; ${httpsOnly}`,
      );
    }
    // scp-like `user@host:path` is ssh; `C:\…`, `/…`, `./…`, `../…` and the rest are local paths.
    if (/^[^/\\:\s]{2,}:/.test(value) || /^[^/\\\s]+@[^/\\\s]+:/.test(value)) refuse(name, value, `uses ssh; ${httpsOnly}`);
    return refuse(name, value, `is a local path; ${httpsOnly}`);
  }

  function credentials(raw: string): Credentials | undefined {
    if (!creds) return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'https:' && !plainHttpAllowed(url)) return undefined;
    if (credentialHosts) {
      const host = urlHost(url);
      const port = urlPort(url);
      if (!credentialHosts.some((h) => h.host === host && (h.port === undefined || h.port === port))) return undefined;
    }
    return creds;
  }

  return {
    http,
    check,
    credentials,
    redact,
    credentialHint: credentialHosts ? `${CREDENTIAL_HINT}, and include the host in ${CREDENTIAL_ENV.hosts}` : CREDENTIAL_HINT,
    close: () => client.close(),
  };
}
