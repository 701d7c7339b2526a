import { startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createSequentialThinkingServer, HISTORY_URI, type HistorySnapshot } from '../src/server.js';
import { base, type Result, session } from './session.js';

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
