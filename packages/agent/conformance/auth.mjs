// The authorization half of the conformance client (client.mjs): the `auth/*` scenarios of the suite.
//
// The suite's authorization server answers `GET /authorize` at once with a 302 to our `redirect_uri` (no login
// page), so the "browser" is `browse()`: plain HTTP GETs that follow the redirects, on loopback hosts only (the
// suite's servers are on `localhost`; the redirect lands on the agent's loopback callback). Everything else is the
// agent's own code path, as `mcp-agent` runs it: `createRegistry` with the OAuth token store, which reports a server
// that wants a login as `auth: 'needs login'` (`serverReports()`); then `login` (the `mcp-agent login` flow, with `browse` as its
// `openUrl`), and a fresh connect with the stored token. A 403 `insufficient_scope` during a tool call is the
// registry's own step-up (one re-authorization through the same `openUrl`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The client ID metadata document URL the suite's basic-cimd scenario expects as `client_id` (never fetched there). */
export const CIMD_URL = 'https://conformance-test.local/client-metadata.json';
/** Redirects one `browse` follows (authorize → callback is one). */
const MAX_HOPS = 5;
/** A login that got no callback fails well inside the suite's limit for the client. */
const LOGIN_TIMEOUT_MS = 15_000;
/** Logins per run: the first, and one more when a token stops working (the server moved to another authorization server). */
const MAX_LOGINS = 2;

const isLoopback = (url) =>
  (url.protocol === 'http:' || url.protocol === 'https:') &&
  (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));

/** The browser step over HTTP: GET `url`, then each `Location`, loopback hosts only. */
export async function browse(url) {
  let next = new URL(url);
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    if (!isLoopback(next)) throw new Error(`browser: refusing a non-loopback URL (${next.protocol}//${next.host})`);
    const response = await fetch(next, { redirect: 'manual', signal: AbortSignal.timeout(LOGIN_TIMEOUT_MS) });
    await response.arrayBuffer();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      if (!response.ok) throw new Error(`browser: ${next.pathname} answered ${response.status}`);
      return;
    }
    next = new URL(location, next);
  }
  throw new Error(`browser: more than ${MAX_HOPS} redirects`);
}

/**
 * The config entry's `oauth` for `scenario`: the pre-registered client the suite hands over in its context
 * (auth/pre-registration), the metadata-document URL it expects (auth/basic-cimd), else none (dynamic registration;
 * no metadata-document URL elsewhere, since the suite would then try to fetch it).
 */
export function oauthFor(scenario, context) {
  if (scenario === 'auth/pre-registration') {
    if (!context.client_id) throw new Error('MCP_CONFORMANCE_CONTEXT has no client_id for auth/pre-registration');
    return { clientId: context.client_id, ...(context.client_secret ? { clientSecret: context.client_secret } : {}) };
  }
  if (scenario === 'auth/basic-cimd') return { clientMetadataUrl: CIMD_URL };
  return undefined;
}

/**
 * Connects `server` through `agent.createRegistry` with a token store in a fresh temporary directory, running
 * `agent.login` (with `browse`) whenever the registry says the server needs a login, at most MAX_LOGINS times.
 * Returns `{ registry, close }`; `close()` also removes the store.
 */
export async function connectWithLogin(agent, server, options, log) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-agent-conformance-'));
  const store = agent.createTokenStore(dir);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (let logins = 0; ; logins++) {
      const registry = await agent.createRegistry([server], { ...options, oauth: { store, openUrl: browse } });
      const [status] = registry.serverReports();
      if (status?.status === 'connected' || status?.auth !== 'needs login' || logins === MAX_LOGINS) {
        return {
          registry,
          close: async () => {
            await registry.close();
            cleanup();
          },
        };
      }
      await registry.close();
      log(`${status.error ?? 'needs login'}: logging in (${logins + 1})`);
      const result = await agent.login(server, { store, openUrl: browse, log, timeoutMs: LOGIN_TIMEOUT_MS });
      log(`login: ${result.status}`);
    }
  } catch (error) {
    cleanup();
    throw error;
  }
}
