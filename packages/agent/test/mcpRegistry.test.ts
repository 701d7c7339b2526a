import { createMemoryServer, createMemoryStore } from '@mcpkit/server-memory';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type ClientCapabilities,
  ErrorCode,
  ListToolsRequestSchema,
  McpError as ProtocolError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { type AgentHost, createRegistry, type McpError, type ServerConfig } from '../src/index.js';

function config(name: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return { kind: 'stdio', name, command: 'unused', args: [], env: {}, approval: { tools: {} }, ...extra } as ServerConfig;
}

function text(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
}

/** Memory servers in process, one store each. */
function memoryTransport() {
  const [client, server] = InMemoryTransport.createLinkedPair();
  void createMemoryServer({ store: createMemoryStore() }).connect(server);
  return client;
}

/** A low-level server: tools in pages of two, a tool that fails with a JSON-RPC error, one with isError. */
function pagedServer(seen: { capabilities?: ClientCapabilities; cursors: (string | undefined)[] }) {
  const tools: Tool[] = ['ok', 'fail', 'oops', 't4', 't5'].map((name) => ({
    name,
    description: `tool ${name}`,
    inputSchema: { type: 'object' },
  }));
  const server = new Server({ name: 'paged', version: '9.9.9' }, { capabilities: { tools: {} } });
  server.oninitialized = () => {
    seen.capabilities = server.getClientCapabilities();
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    seen.cursors.push(cursor);
    const start = cursor === undefined ? 0 : Number(cursor);
    const next = start + 2;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'fail') throw new ProtocolError(ErrorCode.InvalidParams, 'count must be positive');
    if (request.params.name === 'oops') return { isError: true, content: [{ type: 'text', text: 'it went wrong' }] };
    return { content: [{ type: 'text', text: `ran ${request.params.name} with ${JSON.stringify(request.params.arguments)}` }] };
  });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  void server.connect(serverSide);
  return client;
}

describe('createRegistry (in process)', () => {
  it('routes same-named tools of two servers to the right one', async () => {
    await using registry = await createRegistry([config('a'), config('b')], { transportFactory: memoryTransport });
    const names = registry.listTools().map((t) => t.name);
    expect(names).toContain('a__create_entities');
    expect(names).toContain('b__create_entities');
    // Config order, then each server's own order.
    expect(names.indexOf('b__create_entities')).toBeGreaterThan(names.lastIndexOf(names.find((n) => n.startsWith('a__')) ?? ''));
    expect(registry.lookup('a__read_graph')).toMatchObject({ server: 'a', tool: 'read_graph', inputSchema: { type: 'object' } });

    await registry.callTool('a__create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] });
    expect(text(await registry.callTool('a__read_graph', {}))).toContain('Ada');
    expect(text(await registry.callTool('b__read_graph', {}))).not.toContain('Ada');
    expect(registry.servers).toMatchObject([
      { name: 'a', status: 'connected', serverInfo: { name: 'memory-server' } },
      { name: 'b', status: 'connected' },
    ]);
  });

  it('keeps names unique when server names sanitise alike', async () => {
    await using registry = await createRegistry([config('a.b'), config('a_b')], { transportFactory: memoryTransport });
    const first = registry.listTools().filter((t) => t.server === 'a.b');
    const second = registry.listTools().filter((t) => t.server === 'a_b');
    expect(first[0]?.name).toBe(`a_b__${first[0]?.tool}`);
    expect(second[0]?.name).toMatch(new RegExp(`^a_b__${second[0]?.tool}_[0-9a-f]{8}$`));
    const all = registry.listTools().map((t) => t.name);
    expect(new Set(all).size).toBe(all.length);
    // Each name reaches its own server.
    await registry.callTool(`${second.find((t) => t.tool === 'create_entities')?.name}`, {
      entities: [{ name: 'Only-in-a_b', entityType: 'x', observations: [] }],
    });
    expect(text(await registry.callTool('a_b__read_graph', {}))).not.toContain('Only-in-a_b');
  });

  it('rejects an unknown tool with TOOL_NOT_FOUND', async () => {
    await using registry = await createRegistry([config('memory')], { transportFactory: memoryTransport });
    await expect(registry.callTool('nope__x', {})).rejects.toMatchObject({ kind: 'TOOL_NOT_FOUND', message: 'unknown tool "nope__x"' });
  });

  it('follows nextCursor for every page of tools', async () => {
    const seen = { cursors: [] as (string | undefined)[] };
    await using registry = await createRegistry([config('paged')], { transportFactory: () => pagedServer(seen) });
    expect(registry.listTools().map((t) => t.name)).toEqual(['paged__ok', 'paged__fail', 'paged__oops', 'paged__t4', 'paged__t5']);
    expect(seen.cursors).toEqual([undefined, '2', '4']);
    expect(registry.servers[0]).toMatchObject({ tools: 5, serverInfo: { name: 'paged', version: '9.9.9' } });
  });

  it('resolves isError results, rejects JSON-RPC errors as TOOL_EXECUTION_FAILED with the server message', async () => {
    const seen = { cursors: [] };
    await using registry = await createRegistry([config('paged')], { transportFactory: () => pagedServer(seen) });
    expect(text(await registry.callTool('paged__ok', { n: 1 }))).toBe('ran ok with {"n":1}');
    await expect(registry.callTool('paged__oops', {})).resolves.toMatchObject({ isError: true });
    const error = (await registry.callTool('paged__fail', {}).catch((e: unknown) => e)) as McpError;
    expect(error).toMatchObject({ kind: 'TOOL_EXECUTION_FAILED', message: 'paged__fail: count must be positive' });
    expect(error.details).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('declares only the capabilities the host can serve', async () => {
    const bare = { cursors: [] } as { capabilities?: ClientCapabilities; cursors: (string | undefined)[] };
    await (await createRegistry([config('p')], { transportFactory: () => pagedServer(bare) })).close();
    expect(bare.capabilities).toEqual({});

    const full = { cursors: [] } as { capabilities?: ClientCapabilities; cursors: (string | undefined)[] };
    const host: AgentHost = { elicit: async () => ({ action: 'decline' }) };
    const sample = async () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: '' }, model: 'm' });
    await (await createRegistry([config('p')], { host, sample, roots: [], transportFactory: () => pagedServer(full) })).close();
    expect(full.capabilities).toEqual({ elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } });
  });

  it('reports a server that does not answer in time and goes on with the others', async () => {
    const notices: string[] = [];
    // The 0.3 s connect timeout on a driven clock: not ready a millisecond before it, ready when it strikes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let ready = false;
    let pending: ReturnType<typeof createRegistry>;
    try {
      pending = createRegistry([config('silent'), config('memory')], {
        host: { onNotice: (t) => notices.push(t) },
        connectTimeoutMs: 300,
        transportFactory: (c) => {
          if (c.name === 'memory') return memoryTransport();
          const [client, server] = InMemoryTransport.createLinkedPair();
          void server.start(); // connected, but nobody answers
          return client;
        },
      });
      void pending.then(() => {
        ready = true;
      });
      await vi.advanceTimersByTimeAsync(299);
      expect(ready).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
    } finally {
      vi.useRealTimers();
    }
    await using registry = await pending;
    expect(registry.servers).toMatchObject([
      { name: 'silent', status: 'failed', error: 'silent: no answer within 0.3 s', tools: 0 },
      { name: 'memory', status: 'connected' },
    ]);
    expect(notices).toEqual(['silent: no answer within 0.3 s']);
    expect(registry.listTools().every((t) => t.server === 'memory')).toBe(true);
    expect(text(await registry.callTool('memory__read_graph', {}))).toContain('entities');
  });

  it('after close(), calls fail with "not running" and close() can be called again', async () => {
    const registry = await createRegistry([config('memory')], { transportFactory: memoryTransport });
    await registry.close();
    await registry.close();
    await expect(registry.callTool('memory__read_graph', {})).rejects.toMatchObject({
      kind: 'TOOL_EXECUTION_FAILED',
      message: 'memory is not running',
    });
  });

  it('an empty config gives an empty registry', async () => {
    await using registry = await createRegistry([]);
    expect(registry.listTools()).toEqual([]);
    expect(registry.servers).toEqual([]);
  });
});
