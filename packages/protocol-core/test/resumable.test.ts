import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMcpServer, createSessionEventStore, defineTool, registerTools, textResult } from '../src/index.js';
import { closeRequestStream } from '../src/lowLevel.js';
import { startHttp } from '../src/testing/index.js';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `m${n}` } });

async function replay(store: ReturnType<typeof createSessionEventStore>, lastEventId: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const streamId = await store.replayEventsAfter(lastEventId, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { streamId, sent };
}

describe('createSessionEventStore', () => {
  it('replays the events of the same stream after the given id, in order, without priming events', async () => {
    const store = createSessionEventStore();
    const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
    const a = await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(2));
    const b = await store.storeEvent('s1', {} as JSONRPCMessage);
    const c = await store.storeEvent('s1', note(3));
    expect(new Set([priming, a, b, c]).size).toBe(4);
    expect(await store.getStreamIdForEventId(a)).toBe('s1');
    expect(await replay(store, priming)).toEqual({
      streamId: 's1',
      sent: [
        [a, note(1)],
        [c, note(3)],
      ],
    });
    expect(await replay(store, c)).toEqual({ streamId: 's1', sent: [] });
  });

  it('keeps at most maxEvents (oldest dropped); an expired id is refused, not replayed with a gap', async () => {
    const store = createSessionEventStore({ maxEvents: 2 });
    const first = await store.storeEvent('s', note(1));
    const second = await store.storeEvent('s', note(2));
    const third = await store.storeEvent('s', note(3));
    expect(store.size).toBe(2);
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(replay(store, first)).rejects.toThrow(/Unknown or expired event id/);
    expect((await replay(store, second)).sent).toEqual([[third, note(3)]]);
  });

  it('keeps at most maxBytes of event JSON', async () => {
    const big = (n: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x'.repeat(100), n },
    });
    const size = JSON.stringify(big(1)).length;
    const store = createSessionEventStore({ maxBytes: size * 3 });
    for (let n = 1; n <= 5; n++) await store.storeEvent('s', big(n));
    expect(store.size).toBe(3);
    store.clear();
    expect(store.size).toBe(0);
  });

  it('two stores share nothing: an id of one is unknown to the other', async () => {
    const one = createSessionEventStore();
    const two = createSessionEventStore();
    const id = await one.storeEvent('s', note(1));
    await two.storeEvent('s', note(1));
    expect(await two.getStreamIdForEventId(`${id}x`)).toBeUndefined();
    await expect(replay(two, 'other_1')).rejects.toThrow();
  });
});

describe('closeRequestStream through the HTTP runner', () => {
  /** A server whose `pause` tool logs on its stream, tries to close it, and says whether it could. */
  function pausingServer() {
    const server = createMcpServer({ name: 'pause', version: '0' });
    registerTools(server, {}, [
      defineTool({
        name: 'pause',
        title: 'Pause',
        description: 'Closes its response stream mid-call when it can.',
        input: {},
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        handler: async (_args, _ctx, extra) => {
          await extra.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'pausing' } });
          const closed = closeRequestStream(server, extra, { eventSent: true });
          return textResult(closed ? 'closed, then resumed' : 'kept open');
        },
      }),
    ]);
    return server;
  }

  it('stateful sessions are resumable by default: the client reconnects with Last-Event-ID and gets the result', async () => {
    await using http = await startHttp({ createServer: pausingServer });
    const client = await http.connect();
    const result = await client.callTool({ name: 'pause', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'closed, then resumed' }]);
  });

  it('a request declaring MCP-Protocol-Version 2025-03-26 (no priming event) is resumable too, from the id of its log event', async () => {
    await using http = await startHttp({ createServer: pausingServer });
    const client = await http.connect();
    const sessionId = (client.transport as { sessionId?: string }).sessionId!;
    const headers = { accept: 'text/event-stream, application/json', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' };
    const post = await fetch(http.endpoint, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'pause', arguments: {} } }),
    });
    const first = await post.text();
    // The log event only, with an id; the stream ended before the response.
    expect(first).toMatch(/^event: message\nid: \S+\ndata: \{"jsonrpc":"2.0","method":"notifications\/message".*"pausing"/);
    expect(first).not.toContain('"id":7');
    const lastEventId = /^id: (\S+)$/m.exec(first)![1]!;
    const get = await fetch(http.endpoint, { headers: { ...headers, 'last-event-id': lastEventId } });
    const reader = get.body!.getReader();
    let replayed = '';
    while (!replayed.includes('"id":7')) {
      const { value, done } = await reader.read();
      if (done) break;
      replayed += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(replayed).toContain('closed, then resumed');
  });

  it('with eventStore: false, and in stateless mode, the stream is left open', async () => {
    for (const options of [{ eventStore: false as const }, { stateless: true }]) {
      await using http = await startHttp({ createServer: pausingServer }, options);
      const client = await http.connect();
      const result = await client.callTool({ name: 'pause', arguments: {} });
      expect(result.content, JSON.stringify(options)).toEqual([{ type: 'text', text: 'kept open' }]);
    }
  });
});
