// The 2026-07-28 cache hints createMcpServer declares: lists and server/discover cacheable by default,
// nothing with `cacheHints: false`, per operation when a server says so; 2025 answers carry none.
import { createMcpHandler } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createMcpServer, defineTool, registerTools, type ServerInfo, STATIC_LIST_TTL_MS } from '../src/index.js';
import { textResult } from '../src/results.js';
import { connectInMemory, sendRaw } from '../src/testing/index.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function server(cacheHints?: ServerInfo['cacheHints']) {
  const mcp = createMcpServer({ name: 'hints', version: '0', ...(cacheHints !== undefined ? { cacheHints } : {}) });
  registerTools(mcp, {}, [
    defineTool({
      name: 'noop',
      title: 'Noop',
      description: 'Does nothing.',
      input: {},
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: () => textResult('ok'),
    }),
  ]);
  return mcp;
}

/** One 2026-07-28 request through the SDK's handler; its JSON-RPC result. */
async function modern(cacheHints: ServerInfo['cacheHints'] | undefined, method: string) {
  const handler = createMcpHandler(() => server(cacheHints));
  try {
    const response = await handler.fetch(
      new Request('http://local.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: ENVELOPE } }),
      }),
    );
    const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
    if (!body.result) throw new Error(`${method}: ${JSON.stringify(body)}`);
    return body.result;
  } finally {
    await handler.close();
  }
}

describe('cache hints (2026-07-28)', () => {
  it('by default, server/discover and tools/list may be cached by anyone for an hour', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      expect(await modern(undefined, method), method).toMatchObject({ ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' });
    }
  });

  it('cacheHints: false makes nothing cacheable', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      expect(await modern(false, method), method).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    }
  });

  it('a server overrides one operation and keeps the defaults of the others', async () => {
    const hints = { 'tools/list': { ttlMs: 0, cacheScope: 'private' as const } };
    expect(await modern(hints, 'tools/list')).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(await modern(hints, 'server/discover')).toMatchObject({ ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' });
  });

  it('2025-era answers carry no hints', async () => {
    await using pair = await connectInMemory(server());
    const listed = JSON.parse(JSON.stringify(await sendRaw(pair.client, 'tools/list', {})));
    expect(listed).not.toHaveProperty('ttlMs');
    expect(listed).not.toHaveProperty('cacheScope');
  });
});
