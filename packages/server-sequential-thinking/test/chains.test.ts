import { startHttp } from '@mcpkit/protocol-core/testing';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_OWNER, createMemoryChains, createSequentialThinkingApp, requestOwner } from '../src/server.js';
import { chainedThinking } from '../src/tools/chainedThinking.js';
import { chainStoreSuite } from './chainSuite.js';

chainStoreSuite('in-process', async (options) => createMemoryChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024, ...options }));

const UNKNOWN =
  'thoughtChain: no thought chain of yours has this handle (a chain lasts 1 h after its last thought, and only for whoever started it). Nothing was recorded; leave thoughtChain out to start a new chain.';
const base = { thoughtNumber: 1, totalThoughts: 10, nextThoughtNeeded: true };

const serve = (boxes: string[] = []) =>
  startHttp(
    createSequentialThinkingApp({
      chains: createMemoryChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024 }),
      logThoughts: true,
      writeThought: (box) => boxes.push(box),
    }),
  );

const call = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'sequentialthinking', arguments: { thought: 'a step', ...base, ...args } });

describe('2026-07-28 over HTTP: the thoughtChain handle', () => {
  for (const mode of ['auto', '2026-07-28'] as const) {
    it(`${mode}: one process keeps a chain across stateless requests, 1…10, by its handle`, async () => {
      await using http = await serve();
      const client = await http.connect({ mode });
      let chain: string | undefined;
      const lengths: number[] = [];
      for (let n = 1; n <= 10; n++) {
        const res = await call(client, { thoughtNumber: n, ...(chain ? { thoughtChain: chain } : {}) });
        expect(res.isError).toBeFalsy();
        const data = res.structuredContent as { thoughtHistoryLength: number; thoughtChain: string };
        expect(JSON.parse((res.content as { text: string }[])[0]!.text)).toEqual(data);
        expect(data.thoughtChain).toMatch(/^[A-Za-z0-9_-]{32}$/);
        chain = data.thoughtChain;
        lengths.push(data.thoughtHistoryLength);
      }
      expect(lengths).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      // Another client of the same deployment starts its own chain.
      const other = await http.connect({ mode });
      expect((await call(other, {})).structuredContent).toMatchObject({ thoughtHistoryLength: 1 });
    });
  }

  it('lists thoughtChain (optional) and one more paragraph of description to 2026 clients only', async () => {
    await using http = await serve();
    const modern = (await (await http.connect({ mode: '2026-07-28' })).listTools()).tools[0]!;
    const legacy = (await (await http.connect({ mode: 'legacy' })).listTools()).tools[0]!;
    expect(legacy.description).toHaveLength(2781);
    expect(modern.description?.startsWith(`${legacy.description}\n\nThought chains: every result carries thoughtChain`)).toBe(true);
    expect(modern.inputSchema.properties).toMatchObject({ ...legacy.inputSchema.properties, thoughtChain: { type: 'string' } });
    expect(modern.inputSchema.required).toEqual(legacy.inputSchema.required);
    expect(Object.keys(legacy.inputSchema.properties ?? {})).not.toContain('thoughtChain');
    expect(modern.outputSchema?.required).toContain('thoughtChain');
  });

  it('an unknown or malformed handle is an isError naming thoughtChain, and nothing is recorded', async () => {
    const boxes: string[] = [];
    await using http = await serve(boxes);
    const client = await http.connect({ mode: '2026-07-28' });
    for (const thoughtChain of ['A'.repeat(32), 'not a handle', '']) {
      expect(await call(client, { thoughtChain })).toMatchObject({ isError: true, content: [{ type: 'text', text: UNKNOWN }] });
    }
    expect(boxes).toEqual([]);
  });
});

describe('owner binding (the principal of the request)', () => {
  const extraOf = (subject: string | undefined, clientId = 'app') =>
    ({ http: { authInfo: { token: 't', clientId, scopes: [], extra: { subject, issuer: 'https://as.example' } } } }) as never;

  it('a handle of another user is the unknown-chain error; the owner goes on', async () => {
    const chains = createMemoryChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024 });
    const ctx = { chains, chainTtlMs: 3_600_000, maxThoughtBytes: 1024, logThought: async () => {} };
    const args = { thought: 'x', ...base };
    const first = await chainedThinking.handler(args, ctx, extraOf('alice'));
    const handle = (first.structuredContent as { thoughtChain: string }).thoughtChain;
    await expect(chainedThinking.handler({ ...args, thoughtChain: handle }, ctx, extraOf('bob'))).rejects.toThrow(UNKNOWN);
    // A client credentials token (no user, or sub = client id) owns chains as its client, apart from any user's.
    await expect(chainedThinking.handler({ ...args, thoughtChain: handle }, ctx, extraOf('app'))).rejects.toThrow(UNKNOWN);
    await expect(chainedThinking.handler({ ...args, thoughtChain: handle }, ctx, {} as never)).rejects.toThrow(UNKNOWN);
    const again = await chainedThinking.handler({ ...args, thoughtChain: handle }, ctx, extraOf('alice'));
    expect(again.structuredContent).toMatchObject({ thoughtHistoryLength: 2, thoughtChain: handle });
  });

  it('owners: a user by issuer and subject, a client apart, anonymous without a token', () => {
    expect(requestOwner({})).toBe(ANONYMOUS_OWNER);
    expect(requestOwner(extraOf('alice'))).toMatch(/^[0-9a-f]{64}$/);
    expect(requestOwner(extraOf('alice'))).not.toBe(requestOwner(extraOf('bob')));
    expect(requestOwner(extraOf(undefined))).toBe(requestOwner(extraOf('app')));
    expect(requestOwner(extraOf('app'))).not.toBe(requestOwner(extraOf('alice')));
  });
});
