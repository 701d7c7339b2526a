import { parseAllowHost } from './policy.js';

/** Checks a `--proxy-url` value: an http(s) URL. Returns it normalised. */
export function parseProxyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`"${raw}" is not a URL (e.g. http://proxy.example.com:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${raw}" must be an http:// or https:// proxy URL`);
  return url.href;
}

export interface NetworkOptionsEnv {
  /** Variable for `--allow-private-network` (e.g. `FETCH_ALLOW_PRIVATE_NETWORK`). */
  allowPrivateNetwork: string;
  /** Variable for `--allow-host`, comma-separated (e.g. `FETCH_ALLOW_HOSTS`). */
  allowHosts: string;
}

/*
 * The option specs below are what @mcpkit/protocol-core's `defineOptions` takes, written `as const` (its
 * literal types kept, as `defineOptions` keeps them) so that this package needs no protocol-core: a
 * server spreads them into its own `defineOptions`, which checks them.
 */

/** `--allow-private-network` and `--allow-host` (repeatable), for a server's `defineOptions`; `env` names their variables. */
export function networkOptions(env: NetworkOptionsEnv) {
  return {
    'allow-private-network': {
      type: 'boolean',
      env: env.allowPrivateNetwork,
      description: 'Allow loopback, private, link-local and other non-public destinations (cloud metadata stays blocked)',
    },
    'allow-host': {
      type: 'string',
      multiple: true,
      env: env.allowHosts,
      valueName: 'host[:port]',
      description: 'Allow this host (or host and port) whatever it resolves to, e.g. localhost:8080',
      parse: parseAllowHost,
    },
  } as const;
}

/** `--proxy-url`, for a server's `defineOptions`; `env` names its variable (e.g. `FETCH_PROXY_URL`). */
export function proxyOption(env: string) {
  return {
    'proxy-url': {
      type: 'string',
      env,
      valueName: 'url',
      description: 'Send every request through this HTTP(S) proxy',
      parse: parseProxyUrl,
    },
  } as const;
}
