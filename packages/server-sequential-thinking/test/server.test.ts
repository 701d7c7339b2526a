import { Buffer } from 'node:buffer';
import { connectInMemory, startHttp } from '@mcpkit/protocol-core/testing';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatThought } from '../src/format.js';
import { createSequentialThinkingServer, HISTORY_URI, type HistorySnapshot } from '../src/server.js';

type Result = {
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  branches: string[];
  thoughtHistoryLength: number;
};

async function session(options: Parameters<typeof createSequentialThinkingServer>[0] = {}) {
  const pair = await connectInMemory(createSequentialThinkingServer(options));
  const think = async (args: Record<string, unknown>) => {
    const res = await pair.client.callTool({ name: 'sequentialthinking', arguments: args });
    return res;
  };
  const data = async (args: Record<string, unknown>) => {
    const res = await think(args);
    expect(res.isError).toBeFalsy();
    const text = (res.content as { type: string; text: string }[])[0]!.text;
    expect(JSON.parse(text)).toEqual(res.structuredContent);
    return res.structuredContent as Result;
  };
  const history = async () => {
    const read = await pair.client.readResource({ uri: HISTORY_URI });
    return JSON.parse((read.contents[0] as { text: string }).text) as HistorySnapshot;
  };
  const errorText = async (args: Record<string, unknown>) => {
    const res = await think(args);
    expect(res.isError).toBe(true);
    return (res.content as { text: string }[])[0]!.text;
  };
  return { pair, think, data, history, errorText, [Symbol.asyncDispose]: () => pair[Symbol.asyncDispose]() };
}

const base = { thought: 'This is my first thought', thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true };

describe('tools/list (drop-in contract)', () => {
  it('advertises sequentialthinking with the reference description, schema and title', async () => {
    await using s = await session();
    const { tools } = await s.pair.client.listTools();
    expect(tools).toHaveLength(1);
    const tool = tools[0]!;
    expect(tool.name).toBe('sequentialthinking');
    expect(tool.title).toBe('Sequential Thinking');
    expect(tool.description).toMatch(/^A detailed tool for dynamic and reflective problem-solving through thoughts\.\n/);
    expect(tool.description).toMatch(/11\. Only set nextThoughtNeeded to false when truly done and a satisfactory answer is reached$/);
    expect(tool.description).toHaveLength(2781);
    // SDK v2 lists JSON Schema 2020-12 (v1: draft-07); the properties and their meaning are the reference's.
    expect(tool.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        thought: { type: 'string', description: 'Your current thinking step' },
        nextThoughtNeeded: { type: 'boolean', description: 'Whether another thought step is needed' },
        thoughtNumber: { type: 'integer', minimum: 1, description: 'Current thought number (numeric value, e.g., 1, 2, 3)' },
        totalThoughts: { type: 'integer', minimum: 1, description: 'Estimated total thoughts needed (numeric value, e.g., 5, 10)' },
        isRevision: { type: 'boolean', description: 'Whether this revises previous thinking' },
        revisesThought: { type: 'integer', minimum: 1, description: 'Which thought is being reconsidered' },
        branchFromThought: { type: 'integer', minimum: 1, description: 'Branching point thought number' },
        branchId: { type: 'string', description: 'Branch identifier' },
        needsMoreThoughts: { type: 'boolean', description: 'If more thoughts are needed' },
      },
    });
    // The reference forgets nextThoughtNeeded here although it requires it; we list it.
    expect(tool.inputSchema.required).toEqual(['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts']);
    expect(tool.outputSchema).toMatchObject({
      type: 'object',
      required: ['thoughtNumber', 'totalThoughts', 'nextThoughtNeeded', 'branches', 'thoughtHistoryLength'],
      additionalProperties: false,
    });
  });

  it('has honest annotations: it records state, so neither read-only nor idempotent', async () => {
    await using s = await session();
    const { tools } = await s.pair.client.listTools();
    expect(tools[0]!.annotations).toEqual({
      title: 'Sequential Thinking',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
  });
});

describe('reference behaviour (upstream lib.test.ts, §6.9)', () => {
  it('1. accepts a basic thought', async () => {
    await using s = await session();
    expect(await s.data(base)).toEqual({
      thoughtNumber: 1,
      totalThoughts: 3,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: 1,
    });
  });

  it('2. accepts a revision', async () => {
    await using s = await session();
    const r = await s.data({
      ...base,
      thought: 'Revising',
      thoughtNumber: 2,
      isRevision: true,
      revisesThought: 1,
      needsMoreThoughts: false,
    });
    expect(r).toMatchObject({ thoughtNumber: 2, thoughtHistoryLength: 1 });
  });

  it('3. tracks several thoughts', async () => {
    await using s = await session();
    await s.data(base);
    await s.data({ ...base, thoughtNumber: 2 });
    const r = await s.data({ ...base, thoughtNumber: 3, nextThoughtNeeded: false });
    expect(r).toMatchObject({ thoughtHistoryLength: 3, nextThoughtNeeded: false });
  });

  it('4. raises totalThoughts to thoughtNumber', async () => {
    await using s = await session();
    expect(await s.data({ ...base, thoughtNumber: 5, totalThoughts: 3 })).toMatchObject({ thoughtNumber: 5, totalThoughts: 5 });
  });

  it('5. records branches', async () => {
    await using s = await session();
    await s.data(base);
    await s.data({ ...base, thought: 'A', thoughtNumber: 2, branchFromThought: 1, branchId: 'branch-a' });
    const r = await s.data({ ...base, thought: 'B', thoughtNumber: 2, branchFromThought: 1, branchId: 'branch-b' });
    expect(r.branches).toEqual(['branch-a', 'branch-b']);
    expect(r.thoughtHistoryLength).toBe(3);
  });

  it('6. keeps one entry per branch id', async () => {
    await using s = await session();
    await s.data({ ...base, thoughtNumber: 2, branchFromThought: 1, branchId: 'branch-a' });
    const r = await s.data({ ...base, thoughtNumber: 3, branchFromThought: 1, branchId: 'branch-a' });
    expect(r.branches).toEqual(['branch-a']);
  });

  it('7. accepts a 10 000-character thought', async () => {
    await using s = await session();
    expect((await s.think({ ...base, thought: 'a'.repeat(10_000) })).isError).toBeFalsy();
  });

  it('8–9. handles 1/1 and a final thought', async () => {
    await using s = await session();
    expect(await s.data({ ...base, thoughtNumber: 1, totalThoughts: 1 })).toMatchObject({ thoughtNumber: 1, totalThoughts: 1 });
    expect(await s.data({ ...base, thoughtNumber: 3, totalThoughts: 3, nextThoughtNeeded: false })).toMatchObject({
      nextThoughtNeeded: false,
    });
  });

  it('10–11. returns one text content item holding valid JSON', async () => {
    await using s = await session();
    const res = await s.think(base);
    expect(res.content).toHaveLength(1);
    const item = (res.content as { type: string; text: string }[])[0]!;
    expect(item.type).toBe('text');
    expect(item.text).toBe(
      JSON.stringify({ thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: 1 }, null, 2),
    );
  });

  it('12–14. draws regular, revision and branch thoughts on stderr when logging is on', async () => {
    const boxes: string[] = [];
    await using s = await session({ logThoughts: true, writeThought: (b) => boxes.push(b) });
    await s.data(base);
    await s.data({ ...base, thought: 'rev', thoughtNumber: 2, isRevision: true, revisesThought: 1 });
    await s.data({ ...base, thought: 'br', thoughtNumber: 2, branchFromThought: 1, branchId: 'b1' });
    expect(boxes).toHaveLength(3);
    expect(boxes[0]).toContain('│ 💭 Thought 1/3');
    expect(boxes[1]).toContain('│ 🔄 Revision 2/3 (revising thought 1)');
    expect(boxes[2]).toContain('│ 🌿 Branch 2/3 (from thought 1, ID: b1)');
  });

  it('logs nothing when thought logging is off', async () => {
    const boxes: string[] = [];
    await using s = await session({ logThoughts: false, writeThought: (b) => boxes.push(b) });
    await s.data(base);
    expect(boxes).toEqual([]);
  });
});

describe('coercion and validation (reference texts)', () => {
  it('coerces numbers and case-insensitive boolean strings from LLM clients', async () => {
    await using s = await session();
    await s.data(base);
    const r = await s.data({ thought: 'x', nextThoughtNeeded: 'true', thoughtNumber: '5', totalThoughts: '3', isRevision: 'TRUE' });
    expect(r).toEqual({ thoughtNumber: 5, totalThoughts: 5, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: 2 });
    const b = await s.data({
      thought: 'y',
      nextThoughtNeeded: 'False',
      thoughtNumber: 6,
      totalThoughts: 6,
      branchFromThought: '1',
      branchId: 'b1',
    });
    expect(b).toMatchObject({ nextThoughtNeeded: false, branches: ['b1'] });
    const c = await s.data({ thought: 'z', nextThoughtNeeded: false, thoughtNumber: 7, totalThoughts: 7, branchId: 'b2' });
    expect(c.branches).toEqual(['b1']);
  });

  it('reports each invalid field as the reference does', async () => {
    await using s = await session();
    const res = await s.think({ thought: 'x', nextThoughtNeeded: 'yes', thoughtNumber: 0, totalThoughts: 1.5 });
    expect(res.isError).toBe(true);
    // SDK v2's text: no `MCP error -32602: ` prefix, each problem as `<field>: <zod message>`, joined by ", ".
    expect((res.content as { text: string }[])[0]!.text).toBe(
      'Input validation error: Invalid arguments for tool sequentialthinking: ' +
        'nextThoughtNeeded: Invalid input: expected boolean, received string, ' +
        'thoughtNumber: Too small: expected number to be >=1, ' +
        'totalThoughts: Invalid input: expected int, received number',
    );
    const empty = await s.think({});
    expect((empty.content as { text: string }[])[0]!.text).toBe(
      'Input validation error: Invalid arguments for tool sequentialthinking: ' +
        'thought: Invalid input: expected string, received undefined, ' +
        'nextThoughtNeeded: Invalid input: expected boolean, received undefined, ' +
        'thoughtNumber: Invalid input: expected number, received NaN, ' +
        'totalThoughts: Invalid input: expected number, received NaN',
    );
  });
});

describe('beyond the reference', () => {
  it('bounds the history per session, dropping the oldest thoughts and their branches', async () => {
    await using s = await session({ maxHistory: 3 });
    await s.data({ ...base, thoughtNumber: 1, branchFromThought: 1, branchId: 'old' });
    for (let i = 2; i <= 5; i++) await s.data({ ...base, thoughtNumber: i });
    const r = await s.data({ ...base, thoughtNumber: 6, branchFromThought: 5, branchId: 'new' });
    expect(r.thoughtHistoryLength).toBe(3);
    expect(r.branches).toEqual(['new']);
    const read = await s.pair.client.readResource({ uri: HISTORY_URI });
    const snap = JSON.parse((read.contents[0] as { text: string }).text) as HistorySnapshot;
    expect(snap.thoughts.map((t) => t.thoughtNumber)).toEqual([4, 5, 6]);
    expect(snap.dropped).toBe(3);
    expect(snap.maxHistory).toBe(3);
  });

  it('reads the history back as a JSON resource', async () => {
    await using s = await session();
    const { resources } = await s.pair.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: HISTORY_URI, mimeType: 'application/json', title: 'Thought history' })]);
    await s.data(base);
    await s.data({ ...base, thought: 'branching', thoughtNumber: 2, branchFromThought: 1, branchId: 'alt' });
    const read = await s.pair.client.readResource({ uri: HISTORY_URI });
    const snap = JSON.parse((read.contents[0] as { text: string }).text) as HistorySnapshot;
    expect(snap.thoughts.map((t) => t.thought)).toEqual(['This is my first thought', 'branching']);
    expect(Object.keys(snap.branches)).toEqual(['alt']);
    expect(snap.branches.alt![0]!.thought).toBe('branching');
  });

  it('keeps each HTTP session’s history to itself', async () => {
    await using http = await startHttp({ createServer: () => createSequentialThinkingServer() });
    const a = await http.connect();
    const b = await http.connect();
    const call = (c: typeof a, n: number) =>
      c.callTool({ name: 'sequentialthinking', arguments: { ...base, thoughtNumber: n } }).then((r) => r.structuredContent as Result);
    await call(a, 1);
    await call(a, 2);
    expect((await call(b, 1)).thoughtHistoryLength).toBe(1);
    expect((await call(a, 3)).thoughtHistoryLength).toBe(3);
  });
});

describe('size limits (issue 10)', () => {
  const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

  it('refuses a thought over --max-thought-bytes with an error naming thought and the limit, and records nothing', async () => {
    const boxes: string[] = [];
    await using s = await session({ maxThoughtBytes: 1024, logThoughts: true, writeThought: (b) => boxes.push(b) });
    await s.data({ ...base, thought: 'kept' });
    expect(await s.errorText({ ...base, thought: 'a'.repeat(1025), thoughtNumber: 2, branchFromThought: 1, branchId: 'b' })).toBe(
      'thought is 1025 bytes long (UTF-8); at most 1024 bytes (1 KiB) are allowed per thought. Nothing was recorded: split it into smaller thoughts.',
    );
    const snap = await s.history();
    expect(snap.thoughts.map((t) => t.thought)).toEqual(['kept']);
    expect(snap.branches).toEqual({});
    expect(snap.bytes).toBe(4);
    expect(boxes).toHaveLength(1);
    // Exactly at the limit is fine, and the refused call left no trace in the count.
    expect(await s.data({ ...base, thought: 'a'.repeat(1023), thoughtNumber: 2, branchFromThought: 1, branchId: 'b' })).toMatchObject({
      thoughtHistoryLength: 2,
      branches: ['b'],
    });
  });

  it('measures UTF-8 bytes, not characters', async () => {
    await using s = await session({ maxThoughtBytes: 1000 });
    // 501 characters, 1002 bytes.
    expect(await s.errorText({ ...base, thought: 'é'.repeat(501) })).toMatch(/^thought is 1002 bytes long \(UTF-8\); at most 1000 bytes /);
    // 500 UTF-16 units, 1000 bytes.
    expect(await s.data({ ...base, thought: '🎉'.repeat(250) })).toMatchObject({ thoughtHistoryLength: 1 });
  });

  it('refuses the 1 MB thought of the issue by default (128 KiB) and keeps the reference’s 10 000 characters', async () => {
    await using s = await session();
    expect(await s.errorText({ ...base, thought: 'x'.repeat(1024 * 1024) })).toBe(
      'thought is 1048576 bytes long (UTF-8); at most 131072 bytes (128 KiB) are allowed per thought. Nothing was recorded: split it into smaller thoughts.',
    );
    expect(await s.errorText({ ...base, thought: 'x'.repeat(128 * 1024 + 1) })).toMatch(/^thought is 131073 bytes long/);
    await s.data({ ...base, thought: 'x'.repeat(128 * 1024) });
    expect(await s.data({ ...base, thought: 'x'.repeat(10_000) })).toMatchObject({ thoughtHistoryLength: 2 });
  });

  it('counts branchId toward a thought’s size and names it when it tips the thought over', async () => {
    await using s = await session({ maxThoughtBytes: 100 });
    expect(await s.errorText({ ...base, thought: 't'.repeat(60), branchFromThought: 1, branchId: 'b'.repeat(50) })).toBe(
      'thought and branchId are 110 bytes long together (UTF-8); at most 100 bytes are allowed per thought. Nothing was recorded: use a shorter branchId.',
    );
    expect((await s.history()).thoughts).toEqual([]);
  });

  it('keeps a session within --max-history-bytes by dropping the oldest thoughts first', async () => {
    const budget = 1000;
    await using s = await session({ maxHistoryBytes: budget, maxThoughtBytes: 400 });
    // Sizes in bytes; 'é' is 2 bytes, so characters and bytes differ.
    const sizes = [300, 200, 400, 100, 350, 50, 400, 400, 10, 399, 5];
    const sent: string[] = [];
    for (const [i, size] of sizes.entries()) {
      const prefix = `${i}:`;
      const twoByte = Math.floor((size - prefix.length) / 4);
      const thought = prefix + 'é'.repeat(twoByte) + 'x'.repeat(size - prefix.length - 2 * twoByte);
      expect(utf8(thought)).toBe(size);
      sent.push(thought);
      const r = await s.data({ ...base, thought, thoughtNumber: i + 1, totalThoughts: sizes.length });
      // Expected independently: the longest run of the latest thoughts whose bytes fit the budget.
      let keep = 0;
      let total = 0;
      while (keep < sent.length && total + utf8(sent[sent.length - 1 - keep]!) <= budget) total += utf8(sent[sent.length - 1 - keep++]!);
      const snap = await s.history();
      expect(snap.thoughts.map((t) => t.thought)).toEqual(sent.slice(sent.length - keep));
      expect(snap.bytes).toBe(total);
      expect(snap.bytes).toBeLessThanOrEqual(budget);
      expect(snap.thoughts.reduce((n, t) => n + utf8(t.thought), 0)).toBe(snap.bytes);
      expect(snap.dropped).toBe(sent.length - keep);
      expect(snap.maxHistoryBytes).toBe(budget);
      expect(r.thoughtHistoryLength).toBe(keep);
    }
    expect((await s.history()).dropped).toBeGreaterThan(0);
  });

  it('evicts by bytes through the same path as by count: branches stay consistent', async () => {
    await using s = await session({ maxHistoryBytes: 300, maxThoughtBytes: 100 });
    const hundred = (tag: string, branchId = '') => tag.padEnd(100 - branchId.length, '.');
    await s.data({ ...base, thought: hundred('main 1') });
    await s.data({ ...base, thought: hundred('a 2', 'a'), thoughtNumber: 2, branchFromThought: 1, branchId: 'a' });
    expect(
      (await s.data({ ...base, thought: hundred('b 3', 'b'), thoughtNumber: 3, branchFromThought: 1, branchId: 'b' })).branches,
    ).toEqual(['a', 'b']);
    expect((await s.data({ ...base, thought: hundred('main 4'), thoughtNumber: 4 })).branches).toEqual(['a', 'b']);
    // Dropping thought 2 empties branch a.
    expect(await s.data({ ...base, thought: hundred('main 5'), thoughtNumber: 5 })).toMatchObject({
      branches: ['b'],
      thoughtHistoryLength: 3,
    });
    const snap = await s.history();
    expect(Object.keys(snap.branches)).toEqual(['b']);
    expect(snap.branches.b!.map((t) => t.thoughtNumber)).toEqual([3]);
    expect(snap.thoughts.map((t) => t.thoughtNumber)).toEqual([3, 4, 5]);
    expect(snap.bytes).toBe(300);
    expect(snap.dropped).toBe(2);
  });

  it('applies whichever of --max-history and --max-history-bytes is reached first', async () => {
    await using s = await session({ maxHistory: 3, maxHistoryBytes: 1000, maxThoughtBytes: 400 });
    for (let i = 1; i <= 5; i++) await s.data({ ...base, thought: `small ${i}`.padEnd(10, '.'), thoughtNumber: i });
    expect((await s.history()).thoughts).toHaveLength(3);
    await s.data({ ...base, thought: 'L'.repeat(400), thoughtNumber: 6 });
    await s.data({ ...base, thought: 'M'.repeat(400), thoughtNumber: 7 });
    expect((await s.history()).thoughts.map((t) => t.thoughtNumber)).toEqual([5, 6, 7]);
    // Count would allow 3 (400 + 400 + 400) but bytes would not.
    expect(await s.data({ ...base, thought: 'N'.repeat(400), thoughtNumber: 8 })).toMatchObject({ thoughtHistoryLength: 2 });
    const snap = await s.history();
    expect(snap.thoughts.map((t) => t.thoughtNumber)).toEqual([7, 8]);
    expect(snap).toMatchObject({ bytes: 800, dropped: 6, maxHistory: 3, maxHistoryBytes: 1000 });
  });

  it('lowers the default thought limit to a smaller budget and refuses a thought limit above the budget', async () => {
    await using s = await session({ maxHistoryBytes: 1000 });
    expect(await s.errorText({ ...base, thought: 'x'.repeat(1001) })).toMatch(/at most 1000 bytes are allowed per thought/);
    expect(() => createSequentialThinkingServer({ maxHistoryBytes: 1000, maxThoughtBytes: 1001 })).toThrow(
      'maxThoughtBytes (1001) must not exceed maxHistoryBytes (1000)',
    );
  });
});

describe('formatThought', () => {
  const widths = (box: string) => box.split('\n').map((l) => stringWidth(l));

  it('aligns the right edge for emoji, CJK and multi-line thoughts', () => {
    const box = formatThought({ thought: '思考 🎉 mixed\nsecond line\n三', thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true });
    const lines = box.split('\n');
    expect(lines).toHaveLength(7);
    expect(new Set(widths(box)).size).toBe(1);
    expect(lines[3]).toMatch(/^│ 思考 🎉 mixed +│$/);
  });

  it('measures widths without ANSI colour codes', () => {
    const plain = formatThought({
      thought: 'x',
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
      isRevision: true,
      revisesThought: 1,
    });
    const colored = formatThought(
      { thought: 'x', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false, isRevision: true, revisesThought: 1 },
      true,
    );
    expect(widths(colored)).toEqual(widths(plain));
    expect(new Set(widths(plain)).size).toBe(1);
  });
});
