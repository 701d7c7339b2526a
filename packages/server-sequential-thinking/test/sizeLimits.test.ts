import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { createSequentialThinkingServer } from '../src/server.js';
import { base, session } from './session.js';

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
