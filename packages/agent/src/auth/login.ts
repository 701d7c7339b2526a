/**
 * `login`, step-up and `logout` for one HTTP server. The SDK runs the protocol; this runs the
 * loopback listener, hands the provider the listener's redirect URI and `openUrl`, waits for the
 * browser, and checks that the server then lets the agent in.
 *
 *   login: connect with no token → 401 → SDK `auth()` (discovery, registration, PKCE) → the URL is
 *     printed and opened → callback (`state` checked) → `finishAuth` (`iss` checked, code
 *     exchanged, tokens saved) → connect again with the token. When that token is refused at once
 *     (401: the server moved to another authorization server, SEP-2352), the SDK starts over with
 *     fresh discovery (see rejectedToken.ts) and the login runs one more authorization round.
 *   step-up: a 403 `insufficient_scope` → SDK `auth()` with the union of the scopes, forcing a new
 *     authorization when a refresh cannot widen the grant → callback → code exchanged. Once.
 */
import {
  auth,
  Client,
  computeScopeUnion,
  isStrictScopeSuperset,
  type SSEClientTransport,
  type StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { listAllTools } from '../mcp/connection.js';
import { versionNegotiation } from '../mcp/negotiation.js';
import { sseTransport, streamableHttpTransport } from '../mcp/transports.js';
import type { HttpServerConfig } from '../mcp/types.js';
import { VERSION } from '../version.js';
import { type CallbackListener, DEFAULT_LOGIN_TIMEOUT_MS, startCallbackListener } from './callback.js';
import { loginFailure } from './failures.js';
import { insufficientScope, isLoginRequired } from './loginRequired.js';
import { type AgentOAuthProvider, createOAuthProvider, type OpenUrl, providerOptionsFor } from './provider.js';
import type { TokenStore } from './store.js';

export interface LoginOptions {
  store: TokenStore;
  /** Sends the user's browser to the authorization URL (tests: walk it over HTTP). The URL is also logged. */
  openUrl: OpenUrl;
  /** Lines for the user (the URL to open). Default: stderr. */
  log?: (line: string) => void;
  /** Scopes to ask for beyond the config's and the server's (space-separated). */
  scope?: string;
  /** How long to wait for the browser (ms). Default 5 min. */
  timeoutMs?: number;
}

export interface LoginResult {
  /** `not-required`: the server let the agent in without asking for a login. */
  status: 'logged-in' | 'not-required';
  /** The server's tools, listed with the new token. */
  tools: number;
}

/** The scope challenge of a 403 `insufficient_scope`. */
export interface ScopeChallenge {
  requiredScope?: string;
  resourceMetadataUrl?: URL;
}

/**
 * Authorization rounds one login runs: the first, and one more when the server refuses the token it
 * just issued and sends the agent to (another) authorization server.
 */
const MAX_LOGIN_ROUNDS = 2;

function portOf(url: string | undefined): number | undefined {
  if (url === undefined) return undefined;
  try {
    const port = Number(new URL(url).port);
    return port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** A listener and a provider whose redirect URI is that listener, for one authorization. */
async function interactiveProvider(
  server: HttpServerConfig,
  options: LoginOptions,
  freshLogin: boolean,
  rounds: number,
): Promise<{ provider: AgentOAuthProvider; listener: CallbackListener }> {
  const stored = await options.store.read({ name: server.name, url: server.url });
  let provider: AgentOAuthProvider | undefined;
  const listener = await startCallbackListener({
    expectedState: () => provider?.expectedState,
    preferredPort: portOf(stored?.redirectUrl),
    timeoutMs: options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
    rounds,
    ...(options.log ? { log: options.log } : {}),
  });
  const base = providerOptionsFor(server, options.store);
  const extra = options.scope?.split(/\s+/).filter(Boolean) ?? [];
  provider = createOAuthProvider({
    ...base,
    scopes: [...(base.scopes ?? []), ...extra],
    redirectUrl: listener.redirectUrl,
    openUrl: options.openUrl,
    ...(options.log ? { log: options.log } : {}),
    freshLogin,
  });
  return { provider, listener };
}

/** Connect with `provider` and list the tools; closes the client either way. */
async function tryConnect(
  server: HttpServerConfig,
  provider: AgentOAuthProvider,
  timeoutMs: number,
): Promise<{ tools: number } | { error: unknown; transport: StreamableHTTPClientTransport | SSEClientTransport }> {
  const transport = server.transport === 'sse' ? sseTransport(server, provider) : streamableHttpTransport(server, provider);
  const client = new Client(
    { name: 'mcpkit-agent', version: VERSION },
    { versionNegotiation: versionNegotiation(server.protocol ?? 'legacy', timeoutMs) },
  );
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools = await listAllTools(client, { timeout: timeoutMs });
    return { tools: tools.length };
  } catch (error) {
    return { error, transport };
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Ask the authorization server for `challenge.requiredScope` on top of what was granted (the SDK's
 * union), through the browser: `auth()` then, on its redirect, the callback and the code exchange.
 * The caller calls it once per challenge; it never retries by itself.
 */
export async function stepUp(server: HttpServerConfig, challenge: ScopeChallenge, options: LoginOptions): Promise<void> {
  const { provider, listener } = await interactiveProvider(server, options, false, 1);
  try {
    const stored = await options.store.read({ name: server.name, url: server.url });
    const granted = stored?.tokens?.scope;
    // SEP-2350: what was asked for before and granted, plus what the server wants now.
    const scope = computeScopeUnion(stored?.requestedScope, granted, challenge.requiredScope);
    const common = {
      serverUrl: server.url,
      ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
    };
    const result = await auth(provider, {
      ...common,
      ...(scope ? { scope } : {}),
      forceReauthorization: isStrictScopeSuperset(scope, granted),
    });
    if (result === 'AUTHORIZED') return;
    const params = await listener.wait();
    await auth(provider, {
      ...common,
      authorizationCode: params.get('code') ?? '',
      ...(params.has('iss') ? { iss: params.get('iss') ?? '' } : {}),
    });
  } catch (error) {
    throw loginFailure(server.name, error);
  } finally {
    await listener.close();
  }
}

/**
 * Log in to one HTTP server: the whole authorization code flow with a loopback redirect (see the
 * file comment), then a connect with the new token. A server that asks for a wider scope right
 * away (403 on `tools/list`) gets one step-up.
 * @throws McpError `SERVER_START_FAILED`: `login to "<name>" failed: <why>`.
 */
export async function login(server: HttpServerConfig, options: LoginOptions): Promise<LoginResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const { provider, listener } = await interactiveProvider(server, options, true, MAX_LOGIN_ROUNDS);
  let askedForLogin = false;
  try {
    let attempt = await tryConnect(server, provider, timeoutMs);
    /** The authorization URL of the last round: a round runs only for a redirect the SDK made since. */
    let answered: URL | undefined;
    for (let round = 0; round < MAX_LOGIN_ROUNDS; round++) {
      const redirected = provider.authorizationUrl !== undefined && provider.authorizationUrl !== answered;
      if (!('error' in attempt) || !UnauthorizedError.isInstance(attempt.error) || !redirected) break;
      answered = provider.authorizationUrl;
      askedForLogin = true;
      const params = await listener.wait();
      await attempt.transport.finishAuth(params);
      attempt = await tryConnect(server, provider, timeoutMs);
    }
    if ('error' in attempt) {
      const challenge = insufficientScope(attempt.error);
      if (!challenge || !askedForLogin) throw attempt.error;
      await stepUp(server, challenge, options);
      attempt = await tryConnect(server, provider, timeoutMs);
      if ('error' in attempt) throw attempt.error;
    }
    return { status: askedForLogin ? 'logged-in' : 'not-required', tools: attempt.tools };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`login to "${server.name}" failed:`)) throw error;
    if (isLoginRequired(error)) throw loginFailure(server.name, new Error('the server still refuses the token it issued (HTTP 401)'));
    throw loginFailure(server.name, error);
  } finally {
    await listener.close();
  }
}
