/**
 * The `protocol` modes against servers of the 2025 era only (v1 SDK): mcpkit's memory server
 * in-process, the v1 stdio fixture as a child process, and a server that never answers a request
 * before `initialize`. `legacy` (the default) and `auto` connect; `auto` never stalls for longer
 * than its bounded probe; a pinned 2026-07-28 fails in one line that says what to do.
 */
import { fileURLToPath } from 'node:url';
import { createMemoryServer, createMemoryStore } from '@mcpkit/server-memory';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { AUTO_PROBE_TIMEOUT_MS, createRegistry, type ProtocolMode, parseServersConfig, type StdioServerConfig } from '../src/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdioServer.mjs', import.meta.url));
const SILENT = fileURLToPath(new URL('./fixtures/silentServer.mjs', import.meta.url));

function stdio(name: string, script: string, protocol?: ProtocolMode): StdioServerConfig {
  return {
    kind: 'stdio',
    name,
    command: process.execPath,
    args: [script],
    env: {},
    approval: { tools: {} },
    ...(protocol ? { protocol } : {}),
  };
}

/** A v1 memory server in-process (the transport is the v1 SDK's; the agent's v2 client speaks through it). */
function memoryTransport() {
  const [client, server] = InMemoryTransport.createLinkedPair();
  void createMemoryServer({ store: createMemoryStore() }).connect(server);
  return client;
}

describe('protocol modes against 2025-only servers', () => {
  it.each([undefined, 'legacy', 'auto'] as const)('%s: the memory server connects over 2025-11-25 and its tools work', async (protocol) => {
    await using registry = await createRegistry([stdio('memory', 'unused', protocol)], { transportFactory: () => memoryTransport() });
    expect(registry.servers).toMatchObject([{ name: 'memory', status: 'connected', protocolVersion: '2025-11-25' }]);
    const result = await registry.callTool('memory__read_graph', {});
    expect(result.isError).toBeFalsy();
  });

  it.each(['legacy', 'auto'] as const)('%s: the v1 stdio fixture connects as a child process', async (protocol) => {
    await using registry = await createRegistry([stdio('fx', FIXTURE, protocol)]);
    expect(registry.servers).toMatchObject([{ name: 'fx', status: 'connected', protocolVersion: '2025-11-25' }]);
  });

  it('pinned 2026-07-28: SERVER_START_FAILED in one line naming the way out', async () => {
    const notices: string[] = [];
    await using registry = await createRegistry([stdio('fx', FIXTURE, '2026-07-28')], { host: { onNotice: (t) => notices.push(t) } });
    expect(registry.servers[0]?.status).toBe('failed');
    expect(notices).toEqual([
      'fx: does not speak protocol 2026-07-28 (it did not offer it via server/discover); set "protocol": "auto" or "legacy" for it',
    ]);
  });

  it('a server that never answers server/discover: legacy connects at once, auto after its bounded probe', async () => {
    let started = Date.now();
    await using legacy = await createRegistry([stdio('silent', SILENT)], { connectTimeoutMs: 20_000 });
    expect(legacy.servers).toMatchObject([{ status: 'connected', tools: 1, protocolVersion: '2025-11-25' }]);
    expect(Date.now() - started).toBeLessThan(AUTO_PROBE_TIMEOUT_MS);

    started = Date.now();
    await using auto = await createRegistry([stdio('silent', SILENT, 'auto')], { connectTimeoutMs: 20_000 });
    expect(auto.servers).toMatchObject([{ status: 'connected', tools: 1, protocolVersion: '2025-11-25' }]);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(AUTO_PROBE_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(AUTO_PROBE_TIMEOUT_MS * 5); // a factor of the probe's timeout, the contract here
  }, 20_000);

  it('the config reads "protocol" and refuses other values with the JSON path', () => {
    const parse = (protocol: unknown) => parseServersConfig({ mcpServers: { a: { command: 'x', protocol } } }, { baseDir: '/' });
    expect(parse('auto')[0]?.protocol).toBe('auto');
    expect(parse('2026-07-28')[0]?.protocol).toBe('2026-07-28');
    expect(
      parseServersConfig({ mcpServers: { a: { url: 'http://localhost/mcp', protocol: 'legacy' } } }, { baseDir: '/' })[0]?.protocol,
    ).toBe('legacy');
    expect(() => parse('2025-11-25')).toThrow('mcpServers.a.protocol: expected "legacy", "auto" or "2026-07-28", got string "2025-11-25"');
  });
});
