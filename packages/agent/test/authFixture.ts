/**
 * The agent's auth tests on the shared OAuth setup (`@mcpkit/test-utils/protected-memory`: oidc-provider in front
 * of the built `mcp-server-memory`), each with `config()`: the agent's config entry for that server.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  type MovingMemory as SharedMovingMemory,
  type ProtectedMemory as SharedProtectedMemory,
  startMovingMemory as startSharedMovingMemory,
  startProtectedMemory as startSharedProtectedMemory,
} from '@mcpkit/test-utils/protected-memory';
import type { HttpServerConfig } from '../src/index.js';

export { testBrowser } from '@mcpkit/test-utils/protected-memory';

const require = createRequire(import.meta.url);
const MEMORY_BIN = join(dirname(require.resolve('@mcpkit/server-memory/package.json')), 'bin', 'mcp-server-memory.js');

interface WithConfig {
  /** A config entry for the server. */
  config(extra?: Partial<HttpServerConfig>): HttpServerConfig;
}

export type ProtectedMemory = SharedProtectedMemory & WithConfig;
export type MovingMemory = SharedMovingMemory & WithConfig;

export async function startProtectedMemory(): Promise<ProtectedMemory> {
  const setup = await startSharedProtectedMemory(MEMORY_BIN);
  return Object.assign(setup, { config: memoryConfig(setup.endpoint) });
}

/** The memory server behind one authorization server, then moved to another one (SEP-2352). */
export async function startMovingMemory(): Promise<MovingMemory> {
  const setup = await startSharedMovingMemory(MEMORY_BIN);
  return Object.assign(setup, { config: memoryConfig(setup.endpoint) });
}

function memoryConfig(endpoint: string) {
  return (extra: Partial<HttpServerConfig> = {}): HttpServerConfig => ({
    kind: 'http',
    name: 'memory',
    url: endpoint,
    headers: {},
    transport: 'streamable-http',
    approval: { tools: {} },
    ...extra,
  });
}
