/** `import` and `export` in-process: real files, the run's real PostgreSQL (`test/postgres/globalSetup.ts`). */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, createLogger, type Logger } from '@mcpkit/protocol-core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../src/server.js';
import { openPostgresStore } from '../src/store/postgres/postgresStore.js';
import { openTransferDatabase, type TransferDatabase } from '../src/transfer/database.js';
import { exportGraph } from '../src/transfer/exportGraph.js';
import { importGraph } from '../src/transfer/importGraph.js';
import { runsWithTmpfs, smallDisk, tempDir } from './helpers.js';
import { freshGraph, postgresUrl } from './postgres/fixture.js';

const url = postgresUrl();

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ name: 't', level: 'info', write: (l) => lines.push(l) }), lines };
}

async function withDb<T>(run: (db: TransferDatabase) => Promise<T>): Promise<T> {
  const db = await openTransferDatabase(url!);
  try {
    return await run(db);
  } finally {
    await db.close();
  }
}

/** Strings JSON escapes or that are easy to mangle: quotes, backslashes, controls, LIKE wildcards, non-ASCII, astral. */
const TRICKY = [
  'say "hi"',
  'C:\\path\\to',
  'line\nbreak\ttab\r\u0001\u001f',
  '100% of _x_',
  'naïve café — 日本語',
  '😀 emoji \u2028 sep',
  '',
];

/** Prose for observations, so a few thousand records make megabytes (several 1 MiB read and write chunks). */
const PROSE = 'the quick brown fox jumps over the lazy dog; '.repeat(10);

/**
 * A memory file as the file store writes it: `entities` entities (the first ones with tricky strings), relations
 * between them; `long` gives each entity a ~450-character observation.
 */
async function writeWithFileStore(path: string, entities: number, long = false): Promise<void> {
  const store = await openFileStore({ path });
  try {
    const all = Array.from({ length: entities }, (_, i) => ({
      name: i < TRICKY.length ? `${TRICKY[i]}#${i}` : `entity-${i}`,
      entityType: i % 3 === 0 ? 'person' : TRICKY[i % TRICKY.length]!,
      observations: i < 50 ? [...TRICKY, `obs ${i}`] : [`observation ${i}`, long ? `${PROSE}${i}` : `second ${i}`],
    }));
    for (let i = 0; i < all.length; i += 1000) await store.createEntities(all.slice(i, i + 1000));
    const relations = all.slice(1).map((e, i) => ({ from: all[i]!.name, to: e.name, relationType: TRICKY[i % TRICKY.length]! || 'knows' }));
    for (let i = 0; i < relations.length; i += 1000) await store.createRelations(relations.slice(i, i + 1000));
    await store.createRelations([{ from: 'nobody', to: 'dangling "end"', relationType: 'points at' }]);
  } finally {
    await store.close();
  }
}

async function rowCounts(graph: string): Promise<{ e: string; r: string; seq: string }> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT (SELECT count(*) FROM memory_entities WHERE graph = $1) AS e, (SELECT count(*) FROM memory_relations WHERE graph = $1) AS r,
              (SELECT coalesce(max(seq), 0) FROM memory_entities WHERE graph = $1) AS seq`,
      [graph],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

describe.skipIf(!url)('import and export', { tags: ['slow'] }, () => {
  // Sized to check what a big file exercises (several 1 MiB read and write chunks, several import batches and
  // export pages, progress lines) with 12,000 records instead of 60,000: bytes come from long observations, rows
  // are what costs time on a loaded machine. Throughput belongs to the bench, not to this test; no contract here is
  // a duration, so it keeps its own generous limit (a few seconds' work idle, over 10 s at a load of 36 on 2 cores).
  it('a file written by the file store goes through the database and comes back byte for byte (6k entities, streamed)', {
    timeout: 120_000,
  }, async () => {
    using dir = tempDir();
    const source = join(dir.path, 'memory.jsonl');
    await writeWithFileStore(source, 6_000, true);
    const original = readFileSync(source);
    expect(original.length).toBeGreaterThan(2 * 1024 * 1024); // several read and write chunks
    const graph = freshGraph();
    const { logger, lines } = capture();
    const imported = await withDb((db) => importGraph({ file: source, graph, db, logger, progressEvery: 2000 }));
    expect(imported).toEqual({
      entities: { read: 6_000, created: 6_000, merged: 0 },
      relations: { read: 6_000, created: 6_000 },
      rejected: 0,
    });
    expect(lines.filter((l) => / records done /.test(l))).toHaveLength(6);
    expect(existsSync(`${source}.rejected`)).toBe(false);

    const target = join(dir.path, 'exported.jsonl');
    const exported = await withDb((db) => exportGraph({ file: target, graph, db, logger, pageSize: 1000, progressEvery: 4000 }));
    expect(exported).toEqual({ entities: 6_000, relations: 6_000, bytes: original.length });
    expect(readFileSync(target).equals(original)).toBe(true);
    expect(lines.some((l) => l.includes('export: 8,000 of 12,000 records read'))).toBe(true);
    expect(readdirSync(dir.path).filter((f) => f.endsWith('.tmp') || f.startsWith('exported.jsonl.'))).toEqual([]);

    // And the server on the database answers as the file store does.
    const pgStore = openPostgresStore({ url: url!, graph });
    const fileStore = await openFileStore({ path: source });
    try {
      expect(await pgStore.openNodes([`${TRICKY[0]}#0`, `${TRICKY[5]}#5`])).toEqual(
        await fileStore.openNodes([`${TRICKY[0]}#0`, `${TRICKY[5]}#5`]),
      );
    } finally {
      await Promise.all([pgStore.close(), fileStore.close()]);
    }
  });

  it('importing the same file twice changes nothing the second time; an entity already there gets only what it lacks', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'memory.jsonl');
    writeFileSync(
      file,
      [
        '{"type":"entity","name":"Ada","entityType":"person","observations":["math","poetry"]}',
        '{"type":"entity","name":"Bob","entityType":"person","observations":["x"]}',
        '{"type":"entity","name":"Ada","entityType":"robot","observations":["poetry","engines"]}',
        '{"type":"relation","from":"Ada","to":"Bob","relationType":"knows"}',
        '{"type":"relation","from":"Ada","to":"Bob","relationType":"knows"}',
      ].join('\n'),
    );
    const graph = freshGraph();
    const store = openPostgresStore({ url: url!, graph });
    try {
      await store.createEntities([{ name: 'Bob', entityType: 'human', observations: ['y'] }]);
      const { logger } = capture();
      const first = await withDb((db) => importGraph({ file, graph, db, logger }));
      expect(first.entities).toEqual({ read: 3, created: 1, merged: 1 });
      expect(first.relations).toEqual({ read: 2, created: 1 });
      const after = await store.readGraph();
      expect(after.entities).toEqual([
        { name: 'Bob', entityType: 'human', observations: ['y', 'x'] },
        { name: 'Ada', entityType: 'person', observations: ['math', 'poetry', 'engines'] },
      ]);
      const before = await rowCounts(graph);
      const second = await withDb((db) => importGraph({ file, graph, db, logger, batchSize: 1 }));
      expect(second).toEqual({ entities: { read: 3, created: 0, merged: 0 }, relations: { read: 2, created: 0 }, rejected: 0 });
      expect(await store.readGraph()).toEqual(after);
      expect(await rowCounts(graph)).toEqual(before);
    } finally {
      await store.close();
    }
  });

  it('a server watching the graph hears of an import (LISTEN/NOTIFY, as for a peer writing)', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'memory.jsonl');
    writeFileSync(file, '{"type":"entity","name":"A","entityType":"t","observations":[]}');
    const graph = freshGraph();
    const store = openPostgresStore({ url: url!, graph });
    try {
      await store.readGraph(); // the schema exists, the listener can start
      const changes: string[] = [];
      store.onChange((c) => changes.push(c.source));
      const release = store.watch();
      await store.listening!();
      await withDb((db) => importGraph({ file, graph, db, logger: capture().logger }));
      await expect.poll(() => changes, { timeout: 5000 }).toEqual(['external']);
      release();
    } finally {
      await store.close();
    }
  });

  it('reports foreign, unreadable and unstorable lines, keeps them verbatim aside, and imports the rest', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'memory.jsonl');
    const bad = [
      '{"type":"marker","by":"another tool"}',
      '{"type":"entity","name":"broken',
      '{"type":"entity","name":"nul\\u0000","entityType":"t","observations":[]}',
      '{"type":"entity","name":5,"entityType":"t"}',
    ];
    writeFileSync(
      file,
      [
        '{"type":"entity","name":"A","entityType":"t","observations":[]}',
        bad[0],
        '',
        bad[1],
        '{"type":"entity","name":"B","entityType":"t","observations":["crlf"]}\r',
        bad[2],
        '{"type":"relation","from":"A","to":"B","relationType":"r"}{"type":"relation","from":"B","to":"A","relationType":"r"}',
        bad[3],
      ].join('\n'),
    );
    const graph = freshGraph();
    for (let run = 0; run < 2; run++) {
      const { logger, lines } = capture();
      const result = await withDb((db) => importGraph({ file, graph, db, logger }));
      expect(result.rejected).toBe(4);
      expect(result.rejectedPath).toBe(`${file}.rejected`);
      expect(result.entities.read).toBe(2);
      expect(result.relations).toEqual({ read: 2, created: run === 0 ? 2 : 0 });
      // Replaced on each run, never appended to.
      expect(readFileSync(`${file}.rejected`, 'utf8')).toBe(bad.map((l) => `${l}\n`).join(''));
      const warning = lines.filter((l) => l.includes('not imported'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain(
        '4 lines not imported (2 unreadable, 1 of another record type, 1 holding a NUL character): lines 2, 4, 6, 8; kept verbatim in',
      );
    }
    expect(readdirSync(dir.path).sort()).toEqual(['memory.jsonl', 'memory.jsonl.rejected']);
  });

  it('refuses a file that is not a memory graph, and a missing one, before touching the database', async () => {
    using dir = tempDir();
    const settings = join(dir.path, 'settings.json');
    writeFileSync(settings, '{\n  "theme": "dark"\n}\n');
    const { logger } = capture();
    await withDb(async (db) => {
      await expect(importGraph({ file: settings, graph: freshGraph(), db, logger })).rejects.toThrow(ConfigError);
      await expect(importGraph({ file: join(dir.path, 'missing.jsonl'), graph: freshGraph(), db, logger })).rejects.toThrow(/cannot read/);
    });
    expect(existsSync(`${settings}.rejected`)).toBe(false);
  });

  it('refuses a file whose journal holds changes not folded in yet, and takes it once they are', async () => {
    using dir = tempDir();
    const file = join(dir.path, 'memory.jsonl');
    const store = await openFileStore({ path: file, compactDelayMs: 60_000 });
    await store.createEntities([{ name: 'A', entityType: 't', observations: [] }]);
    await store.createEntities([{ name: 'B', entityType: 't', observations: [] }]);
    const graph = freshGraph();
    const { logger } = capture();
    try {
      await withDb((db) =>
        expect(importGraph({ file, graph, db, logger })).rejects.toThrow(
          /memory\.jsonl\.wal holds changes not yet folded into .*memory\.jsonl/,
        ),
      );
    } finally {
      await store.close();
    }
    const result = await withDb((db) => importGraph({ file, graph, db, logger }));
    expect(result.entities).toEqual({ read: 2, created: 2, merged: 0 });
  });

  it('export refuses to replace a file without force, replaces it with force (keeping its mode), and leaves no temp file', async () => {
    using dir = tempDir();
    const graph = freshGraph();
    const store = openPostgresStore({ url: url!, graph });
    await store.createEntities([{ name: 'A', entityType: 't', observations: ['o'] }]);
    await store.close();
    const target = join(dir.path, 'out.jsonl');
    writeFileSync(target, 'keep me', { mode: 0o644 });
    const { logger } = capture();
    await withDb(async (db) => {
      await expect(exportGraph({ file: target, graph, db, logger })).rejects.toThrow(/exists; nothing was written \(add --force/);
      expect(readFileSync(target, 'utf8')).toBe('keep me');
      await exportGraph({ file: target, graph, db, logger, force: true });
    });
    expect(readFileSync(target, 'utf8')).toBe('{"type":"entity","name":"A","entityType":"t","observations":["o"]}');
    expect(readdirSync(dir.path)).toEqual(['out.jsonl']);
    const fresh = join(dir.path, 'new.jsonl');
    const empty = capture();
    await withDb((db) => exportGraph({ file: fresh, graph: freshGraph(), db, logger: empty.logger }));
    expect(readFileSync(fresh, 'utf8')).toBe('');
    expect(empty.lines.join('')).toMatch(/is empty \(is --graph right\?\)/);
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it.runIf(runsWithTmpfs)(
    'export to a disk without room for it (a real tmpfs) fails with ENOSPC and leaves no file, not a short one',
    async () => {
      using disk = smallDisk(1024 * 1024);
      const graph = freshGraph();
      const store = openPostgresStore({ url: url!, graph });
      await store.createEntities(
        Array.from({ length: 8 }, (_, i) => ({ name: `E${i}`, entityType: 't', observations: ['x'.repeat(7000)] })),
      );
      await store.close();
      disk.fill(20 * 1024);
      const target = join(disk.path, 'out.jsonl');
      const { logger } = capture();
      await withDb((db) =>
        expect(exportGraph({ file: target, graph, db, logger })).rejects.toThrow(expect.objectContaining({ code: 'ENOSPC' })),
      );
      expect(readdirSync(disk.path)).toEqual(['filler']);
    },
  );
});
