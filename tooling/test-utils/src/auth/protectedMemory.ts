/**
 * A real OAuth setup on loopback for the agent's auth tests (a client that logs in): oidc-provider (the test
 * authorization server, `./provider.ts`, with dynamic registration and refresh tokens) in front of the built
 * `mcp-server-memory` (`memoryBin`: the caller resolves it from its own devDependency on `@mcpkit/server-memory`)
 * started with `--oauth-issuer`/`--oauth-audience`, and a "browser" that walks an authorization URL through the
 * provider's login and consent pages and then calls the client's loopback redirect, as a real browser does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../net/freePort.js';
import { type HttpBin, spawnHttpBin } from './bin.js';
import { startAuthServer, type TestAuthServer, type TestResource } from './provider.js';

/** Another resource of the same authorization server: makes `memory:write` a scope the provider knows. */
const OTHER_RESOURCE = 'https://other.example.com/mcp';

export interface ProtectedMemory extends AsyncDisposable {
  as: TestAuthServer;
  server: HttpBin;
  /** `http://127.0.0.1:<port>/mcp`, also the server's resource identifier. */
  endpoint: string;
  /** What the authorization server grants for the endpoint (mutable: scopes, token lifetime). */
  resource: { scopes: string[]; ttlSeconds?: number };
  /** A fresh directory (removed at the end). */
  tempDir(): string;
  close(): Promise<void>;
}

/** `memoryBin` (`bin/mcp-server-memory.js`) on a free port behind a fresh authorization server. */
export async function startProtectedMemory(memoryBin: string): Promise<ProtectedMemory> {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-agent-auth-'));
    dirs.push(dir);
    return dir;
  };
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}/mcp`;
  const resource: TestResource & { scopes: string[] } = { scopes: ['memory:read', 'memory:write'] };
  const as = await startAuthServer({
    resources: { [endpoint]: resource, [OTHER_RESOURCE]: { scopes: ['memory:read', 'memory:write'] } },
    registration: true,
    refreshTokens: true,
  });
  const server = await spawnMemory(memoryBin, port, as.issuer, join(tempDir(), 'memory.jsonl'));
  const close = async () => {
    await server.close();
    await as.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  return { as, server, endpoint, resource, tempDir, close, [Symbol.asyncDispose]: close };
}

/** The built memory server on `port`, accepting the tokens of `issuer` for its own URL. */
function spawnMemory(memoryBin: string, port: number, issuer: string, memoryPath: string): Promise<HttpBin> {
  return spawnHttpBin(memoryBin, {
    // Next to no clock skew allowed: a token past its `exp` is refused at once (the refresh test).
    args: [
      '--memory-path',
      memoryPath,
      '--port',
      String(port),
      '--oauth-issuer',
      issuer,
      '--oauth-audience',
      `http://127.0.0.1:${port}/mcp`,
      '--oauth-clock-skew',
      '1ms',
    ],
  });
}

export interface MovingMemory extends AsyncDisposable {
  /** Two authorization servers that both know the endpoint; the server starts with `first`. */
  first: TestAuthServer;
  second: TestAuthServer;
  endpoint: string;
  /** Restart the server on the same port (same data) behind `as` (its metadata then names `as`). */
  moveTo(as: TestAuthServer): Promise<void>;
  /** A fresh directory (removed at the end). */
  tempDir(): string;
  close(): Promise<void>;
}

/** The memory server behind one authorization server, then moved to another one (SEP-2352). */
export async function startMovingMemory(memoryBin: string): Promise<MovingMemory> {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-agent-moving-'));
  let count = 0;
  const tempDir = () => mkdtempSync(join(root, `d${count++}-`));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}/mcp`;
  const options = { resources: { [endpoint]: { scopes: ['memory:read', 'memory:write'] } }, registration: true, refreshTokens: true };
  const first = await startAuthServer(options);
  const second = await startAuthServer(options);
  const memoryPath = join(root, 'memory.jsonl');
  let server = await spawnMemory(memoryBin, port, first.issuer, memoryPath);
  const close = async () => {
    await server.close();
    await first.close();
    await second.close();
    rmSync(root, { recursive: true, force: true });
  };
  return {
    first,
    second,
    endpoint,
    async moveTo(as) {
      await server.close();
      server = await spawnMemory(memoryBin, port, as.issuer, memoryPath);
    },
    tempDir,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * A browser that logs in as `login` and records every URL it was sent to. With several
 * authorization servers it logs in at the one the URL names; `beforeRedirect` runs between the
 * authorization server's answer and the redirect back to the agent.
 */
export function testBrowser(
  as: TestAuthServer | readonly TestAuthServer[],
  login = 'alice',
  beforeRedirect?: (url: string) => Promise<void>,
) {
  const opened: string[] = [];
  const servers = Array.isArray(as) ? as : [as as TestAuthServer];
  const openUrl = async (url: string) => {
    opened.push(url);
    const target = servers.find((one) => new URL(url).origin === new URL(one.issuer).origin);
    if (!target) throw new Error(`the browser was sent to an unknown authorization server: ${new URL(url).origin}`);
    const params = await target.authorize(url, login);
    await beforeRedirect?.(url);
    const redirect = new URL(url).searchParams.get('redirect_uri');
    if (!redirect) throw new Error('the authorization URL has no redirect_uri');
    const response = await fetch(`${redirect}?${params}`);
    await response.body?.cancel();
  };
  return { opened, openUrl };
}
