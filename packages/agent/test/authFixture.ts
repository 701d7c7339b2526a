/**
 * A real OAuth setup on loopback for the agent's auth tests: oidc-provider (protocol-core's test
 * authorization server, with dynamic registration and refresh tokens) in front of the built
 * `mcp-server-memory` started with `--oauth-issuer`/`--oauth-audience`, and a "browser" that walks
 * an authorization URL through the provider's login and consent pages and then calls the agent's
 * loopback redirect, as a real browser does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type HttpBin, spawnHttpBin } from '../../protocol-core/test/auth/bin.ts';
import { startAuthServer, type TestAuthServer, type TestResource } from '../../protocol-core/test/auth/provider.ts';
import type { HttpServerConfig } from '../src/index.js';

const require = createRequire(import.meta.url);
const MEMORY_BIN = join(dirname(require.resolve('@mcpkit/server-memory/package.json')), 'bin', 'mcp-server-memory.js');
/** Another resource of the same authorization server: makes `memory:write` a scope the provider knows. */
const OTHER_RESOURCE = 'https://other.example.com/mcp';

export interface ProtectedMemory extends AsyncDisposable {
  as: TestAuthServer;
  server: HttpBin;
  /** `http://127.0.0.1:<port>/mcp`, also the server's resource identifier. */
  endpoint: string;
  /** What the authorization server grants for the endpoint (mutable: scopes, token lifetime). */
  resource: { scopes: string[]; ttlSeconds?: number };
  /** A config entry for the server. */
  config(extra?: Partial<HttpServerConfig>): HttpServerConfig;
  /** A fresh directory (removed at the end). */
  tempDir(): string;
  close(): Promise<void>;
}

/** A free loopback port (the server's audience must be its own URL, known before it starts). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startProtectedMemory(): Promise<ProtectedMemory> {
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
  const server = await spawnHttpBin(MEMORY_BIN, {
    // Next to no clock skew allowed: a token past its `exp` is refused at once (the refresh test).
    args: [
      '--memory-path',
      join(tempDir(), 'memory.jsonl'),
      '--port',
      String(port),
      '--oauth-issuer',
      as.issuer,
      '--oauth-audience',
      endpoint,
      '--oauth-clock-skew',
      '1ms',
    ],
  });
  const close = async () => {
    await server.close();
    await as.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  return {
    as,
    server,
    endpoint,
    resource,
    config: (extra = {}) => ({
      kind: 'http',
      name: 'memory',
      url: endpoint,
      headers: {},
      transport: 'streamable-http',
      approval: { tools: {} },
      ...extra,
    }),
    tempDir,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A browser that logs in as `login` and records every URL it was sent to. */
export function testBrowser(as: TestAuthServer, login = 'alice') {
  const opened: string[] = [];
  const openUrl = async (url: string) => {
    opened.push(url);
    const params = await as.authorize(url, login);
    const redirect = new URL(url).searchParams.get('redirect_uri');
    if (!redirect) throw new Error('the authorization URL has no redirect_uri');
    const response = await fetch(`${redirect}?${params}`);
    await response.body?.cancel();
  };
  return { opened, openUrl };
}
