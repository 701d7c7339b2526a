/**
 * The lstat pool's chunked sharing (statPool.ts): several helpers and the calling thread claim chunks of one list,
 * the answers are numbers (`lstatValues`), and a helper reuses the list it kept when it is handed the same array
 * again. Whatever thread answers a path, the answer is lstatSync's, now (not the one of the call before).
 */
import { lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createStatPool, FIELDS, MISSING, type StatPool, statAt } from '../src/engine/git/statPool.js';
import { tempDir, write } from './helpers.js';

const fields = (st: { mode: number; size: number; mtimeMs: number; ctimeMs: number; ino: number } | null) =>
  st && { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };

function oracle(dir: string, rels: readonly string[]) {
  return rels.map((rel) => {
    try {
      return fields(lstatSync(join(dir, rel)));
    } catch {
      return null;
    }
  });
}

/** Calls `lstatValues` until the helpers have answered part of the list (polling the pool's state, not time). */
async function untilShared(pool: StatPool, dir: string, rels: readonly string[]): Promise<Float64Array> {
  let values: Float64Array = new Float64Array(0);
  await vi.waitFor(
    () => {
      const before = pool.helperLstats();
      values = pool.lstatValues(dir, rels);
      expect(pool.helperLstats()).toBeGreaterThan(before);
    },
    { timeout: 20_000, interval: 10 },
  );
  return values;
}

describe('the lstat pool, in chunks', () => {
  it('answers as lstatSync does with three helpers, as numbers, and afresh when handed the same list again', async () => {
    using dir = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 7}/f${i}.txt`] = 'x'.repeat(i % 13);
    write(dir.path, files);
    const rels = [...Object.keys(files), 'missing.txt', 'd1/f1.txt/under-a-file', 'd2'];
    const pool = createStatPool({ minBatch: 8, threads: true, helpers: 3 });
    try {
      const values = await untilShared(pool, dir.path, rels);
      expect(values.length).toBe(rels.length * FIELDS);
      expect(rels.map((_, i) => fields(statAt(values, i)))).toEqual(oracle(dir.path, rels));
      expect(values[(rels.length - 3) * FIELDS]).toBe(MISSING);
      // The same array again (the helpers keep it): every file changed size, and every answer must say so.
      for (const rel of Object.keys(files)) writeFileSync(join(dir.path, rel), `${files[rel]}changed`);
      const again = await untilShared(pool, dir.path, rels);
      expect(rels.map((_, i) => fields(statAt(again, i)))).toEqual(oracle(dir.path, rels));
      // A different list of the same length: answered for its own paths, not the kept ones.
      const other = [...rels].reverse();
      const reversed = await untilShared(pool, dir.path, other);
      expect(other.map((_, i) => fields(statAt(reversed, i)))).toEqual(oracle(dir.path, other));
      expect(pool.lstatAll(dir.path, other).map(fields)).toEqual(oracle(dir.path, other));
    } finally {
      await pool.close();
    }
    expect(pool.helperState()).toBe('off');
  });
});
