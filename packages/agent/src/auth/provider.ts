/**
 * The agent's `OAuthClientProvider`: the storage and browser hand-off the SDK's `auth()` drives.
 * The SDK does the protocol (RFC 9728 discovery, authorization server metadata with its issuer
 * checked, pre-registered / metadata-document / dynamic registration, PKCE, the resource
 * indicator, refresh); this keeps what it saves in the token store and, when it wants the user
 * at the authorization server, prints the URL and opens it through `openUrl`, or, without
 * `openUrl` (a plain connect), says that a login is needed.
 */
import { randomBytes } from 'node:crypto';
import {
  computeScopeUnion,
  type OAuthClientInformationContext,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  validateClientMetadataUrl,
} from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.js';
import type { HttpServerConfig } from '../mcp/types.js';
import { LoginRequiredError } from './loginRequired.js';
import type { StoredServerAuth, TokenStore, TokenStoreKey } from './store.js';

/** Opens a URL in the user's browser (or, in tests, walks it over HTTP). */
export type OpenUrl = (url: string) => void | Promise<void>;

/** The redirect URI a provider names when no login is running (it is never listened on). */
const IDLE_REDIRECT_URL = 'http://127.0.0.1/callback';

export interface OAuthProviderOptions {
  /** The server's name in the config. */
  serverName: string;
  /** Its MCP endpoint. */
  serverUrl: string;
  store: TokenStore;
  /** The loopback callback of a running login. Default: one that nobody listens on (no login running). */
  redirectUrl?: string;
  /**
   * Present: the provider may send the user to the authorization server (the URL goes to `log` and
   * to `openUrl`). Absent: a needed login fails the request with `LoginRequiredError`.
   */
  openUrl?: OpenUrl;
  /** Lines for the user (the authorization URL, a browser that did not open). Default: stderr. */
  log?: (line: string) => void;
  /** A pre-registered client (the config's `oauth.clientId`): used before any other registration. */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for beyond those the server names. */
  scopes?: readonly string[];
  /** An https URL of this client's metadata document (SEP-991), used where the server supports it. */
  clientMetadataUrl?: string;
  /** A fresh login: stored tokens and discovery are not used (nor refreshed) until new ones are saved. */
  freshLogin?: boolean;
}

export interface AgentOAuthProvider extends OAuthClientProvider {
  readonly serverName: string;
  /** The authorization URL the SDK last sent the user to (or, without `openUrl`, wanted to). */
  readonly authorizationUrl: URL | undefined;
  /** The `state` of the last authorization request, which the callback must carry. */
  readonly expectedState: string | undefined;
}

/** A URL a browser may be sent to: https, or http on a loopback host. */
function isSafeBrowserUrl(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  const host = url.hostname;
  return url.protocol === 'http:' && (host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

/** Whether a registration stamped with `stamp` belongs to `issuer` (unstamped, or no issuer known: yes; one trailing `/` aside, as the SDK compares). */
function sameIssuer(stamp: string | undefined, issuer: string | undefined): boolean {
  if (stamp === undefined || issuer === undefined) return true;
  const trim = (value: string) => value.replace(/\/$/, '');
  return trim(stamp) === trim(issuer);
}

function portOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).port;
  } catch {
    return undefined;
  }
}

/** The provider for one server, over `options.store`. */
export function createOAuthProvider(options: OAuthProviderOptions): AgentOAuthProvider {
  const { serverName, store, openUrl } = options;
  validateClientMetadataUrl(options.clientMetadataUrl);
  const key: TokenStoreKey = { name: serverName, url: options.serverUrl };
  const redirectUrl = options.redirectUrl ?? IDLE_REDIRECT_URL;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const preRegistered: OAuthClientInformationMixed | undefined =
    options.clientId === undefined
      ? undefined
      : { client_id: options.clientId, ...(options.clientSecret !== undefined ? { client_secret: options.clientSecret } : {}) };
  let verifier: string | undefined;
  let lastState: string | undefined;
  let authorizationUrl: URL | undefined;
  /** A fresh login ignores what was stored until it saved its own. */
  let savedTokens = false;
  let savedDiscovery = false;
  /** Discovery of a connect that may not write (see `saveDiscoveryState`). */
  let discoveredHere: OAuthDiscoveryState | undefined;

  const record = (): Promise<StoredServerAuth | undefined> => store.read(key);
  /** The config's (and `--scope`'s) scopes: added to every authorization request (not registered: a
   * server may hold a client to the scopes it registered with). */
  const extraScope = options.scopes && options.scopes.length > 0 ? options.scopes.join(' ') : undefined;
  /** The scope of the last authorization request, remembered with the tokens it brought. */
  let requestedScope: string | undefined;
  const clientMetadata: OAuthClientMetadata = {
    client_name: 'mcp-agent',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: preRegistered?.client_secret !== undefined ? 'client_secret_basic' : 'none',
  };

  const provider: AgentOAuthProvider = {
    serverName,
    get authorizationUrl() {
      return authorizationUrl;
    },
    get expectedState() {
      return lastState;
    },
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return clientMetadata;
    },
    ...(options.clientMetadataUrl !== undefined ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    state() {
      lastState = randomBytes(24).toString('base64url');
      return lastState;
    },
    async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
      const stored = await record();
      const info = stored?.clientInformation;
      if (preRegistered) {
        // The config's client, with the issuer stamp the SDK gave it once it was used (SEP-2352); for
        // another authorization server (the server moved) unstamped again, not replaced by a registration.
        const same = info?.client_id === preRegistered.client_id && info.client_secret === preRegistered.client_secret;
        return same && sameIssuer(info.issuer, ctx?.issuer) ? info : preRegistered;
      }
      // Registering is the start of a login; a plain connect does not start one (nor does it register
      // at an authorization server the server moved to: the SDK would drop this one by its issuer).
      if (info === undefined || (!openUrl && !sameIssuer(info.issuer, ctx?.issuer))) {
        if (!openUrl) throw new LoginRequiredError(serverName);
        return undefined;
      }
      // Registered for another loopback port (that one was busy): a strict server would refuse the
      // redirect, so register again for this one (a metadata-document client id has no such tie).
      if (openUrl && !/^https:/.test(info.client_id) && portOf(stored?.redirectUrl) !== portOf(redirectUrl)) return undefined;
      return info;
    },
    async saveClientInformation(info: StoredOAuthClientInformation) {
      await store.update(key, (r) => {
        r.clientInformation = info;
        r.redirectUrl = redirectUrl;
      });
    },
    async tokens(): Promise<StoredOAuthTokens | undefined> {
      if (options.freshLogin && !savedTokens) return undefined;
      return (await record())?.tokens;
    },
    async saveTokens(tokens: StoredOAuthTokens) {
      savedTokens = true;
      await store.update(key, (r) => {
        r.tokens = tokens;
        r.tokensSavedAt = Date.now();
        if (requestedScope !== undefined) r.requestedScope = requestedScope;
      });
    },
    async redirectToAuthorization(url: URL) {
      if (extraScope !== undefined) {
        const scope = computeScopeUnion(url.searchParams.get('scope') ?? undefined, extraScope);
        if (scope !== undefined) url.searchParams.set('scope', scope);
      }
      requestedScope = url.searchParams.get('scope') ?? undefined;
      authorizationUrl = url;
      if (!openUrl) throw new LoginRequiredError(serverName);
      // The URL comes from the server's discovery metadata: never hand the browser a file: or javascript: URL.
      if (!isSafeBrowserUrl(url)) {
        throw new Error(`refusing to open the authorization URL of "${serverName}": it is not https (${url.protocol})`);
      }
      log(`To log in to "${serverName}", open this URL in a browser (opening it now):\n  ${url.href}`);
      void Promise.resolve()
        .then(() => openUrl(url.href))
        .catch((error: unknown) => log(`could not open a browser (${errorMessage(error)}); open the URL above yourself`));
    },
    saveCodeVerifier(codeVerifier: string) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (verifier === undefined) throw new Error(`no login of "${serverName}" is under way (no PKCE code verifier)`);
      return verifier;
    },
    async saveDiscoveryState(state: OAuthDiscoveryState) {
      savedDiscovery = true;
      // A plain connect to a server never logged in to leaves no file behind.
      if (!openUrl && (await record()) === undefined) {
        discoveredHere = state;
        return;
      }
      await store.update(key, (r) => {
        r.discoveryState = state;
      });
    },
    async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
      if (options.freshLogin && !savedDiscovery) return undefined;
      return discoveredHere ?? (await record())?.discoveryState;
    },
    async invalidateCredentials(which: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
      if (which === 'all' || which === 'verifier') verifier = undefined;
      if (which === 'all' || which === 'discovery') discoveredHere = undefined;
      if (which === 'verifier') return;
      if ((await record()) === undefined) return;
      await store.update(key, (r) => {
        if (which === 'all' || which === 'client') {
          delete r.clientInformation;
          delete r.redirectUrl;
        }
        if (which === 'all' || which === 'tokens') {
          delete r.tokens;
          delete r.tokensSavedAt;
        }
        if (which === 'all' || which === 'discovery') delete r.discoveryState;
      });
    },
  };
  return provider;
}

/** The provider options a config entry implies (its `oauth`), over `store`, for a plain connect. */
export function providerOptionsFor(server: HttpServerConfig, store: TokenStore): OAuthProviderOptions {
  const oauth = server.oauth ?? {};
  return {
    serverName: server.name,
    serverUrl: server.url,
    store,
    ...(oauth.clientId !== undefined ? { clientId: oauth.clientId } : {}),
    ...(oauth.clientSecret !== undefined ? { clientSecret: oauth.clientSecret } : {}),
    ...(oauth.scopes !== undefined ? { scopes: oauth.scopes } : {}),
    ...(oauth.clientMetadataUrl !== undefined ? { clientMetadataUrl: oauth.clientMetadataUrl } : {}),
  };
}
