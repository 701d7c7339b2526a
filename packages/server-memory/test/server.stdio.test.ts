import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../src/server.js';
import { referenceLoad, referenceSave, tempDir } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const entity = (name: string) => ({ name, entityType: 'thing', observations: [`about ${name}`, 'a', 'b'] });

/** A graph file above the whole-file-rewrite threshold (256 KiB), so the server journals. */
function bigGraph(n: number): string {
  const entities = Array.from({ length: n }, (_, i) => ({ ...entity(`Big${i}`), observations: [`${'x'.repeat(100)} ${i}`, 'a', 'b'] }));
  return referenceSave({ entities, relations: [] });
}

async function countIn(path: string): Promise<Set<string>> {
  const store = await openFileStore({ path, lockStaleMs: 2000 });
  const names = new Set((await store.readGraph()).entities.map((e) => e.name));
  await store.close();
  return names;
}

describe('mcp-server-memory (built bin over stdio)', () => {
  it('serves the tools, prints the resolved file, and writes the reference format', async () => {
    using dir = tempDir();
    await using proc = await spawnStdio(bin, { args: ['--memory-path', 'sub/memory.jsonl'], cwd: dir.path });
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'memory-server' });
    expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual([
      'create_entities',
      'create_relations',
      'add_observations',
      'delete_entities',
      'delete_observations',
      'delete_relations',
      'read_graph',
      'search_nodes',
      'open_nodes',
    ]);
    const res = await proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity('Alice')] } });
    expect(res.structuredContent).toEqual({ entities: [entity('Alice')] });
    const path = join(dir.path, 'sub', 'memory.jsonl');
    expect(readFileSync(path, 'utf8')).toBe(referenceSave({ entities: [entity('Alice')], relations: [] }));
    expect(proc.stderr()).toContain(`knowledge graph file: ${path} (from --memory-path)`);
  });

  it('refuses a file that is not a memory graph: exit 2, file untouched', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'settings.json');
    writeFileSync(path, '{\n  "a": 1\n}\n');
    const { code, stderr } = await runBin(bin, { env: { MEMORY_FILE_PATH: path } });
    expect(code).toBe(2);
    expect(stderr).toContain(`mcp-server-memory: ${path} is not a knowledge-graph memory file (line 1: `);
    expect(readFileSync(path, 'utf8')).toBe('{\n  "a": 1\n}\n');
  });
});

describe('several processes on one file', () => {
  for (const [label, initial] of [
    ['empty file (whole-file rewrites)', ''],
    ['large file (journal)', bigGraph(2500)],
  ] as const) {
    it(`4 processes × 250 concurrent create_entities → exactly 1000 new entities (${label})`, async () => {
      using dir = tempDir();
      const path = join(dir.path, 'memory.jsonl');
      writeFileSync(path, initial);
      const procs = await Promise.all(
        Array.from({ length: 4 }, () => spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'warn'] })),
      );
      try {
        const results = await Promise.all(
          procs.flatMap((proc, p) =>
            Array.from({ length: 250 }, (_, i) =>
              proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(`P${p}-${i}`)] } }),
            ),
          ),
        );
        expect(results.filter((r) => r.isError)).toEqual([]);
        // Every process sees all writes, including the others'.
        for (const proc of procs) {
          const g = (await proc.client.callTool({ name: 'search_nodes', arguments: { query: 'about P', namesOnly: true } }))
            .structuredContent as {
            total: { entities: number };
          };
          expect(g.total.entities).toBe(1000);
        }
      } finally {
        for (const proc of procs) await proc[Symbol.asyncDispose]();
      }
      const names = await countIn(path);
      expect([...names].filter((n) => n.startsWith('P'))).toHaveLength(1000);
      // After the processes exit, the file alone (what the reference reads) holds everything.
      expect(referenceLoad(readFileSync(path, 'utf8')).entities).toHaveLength(1000 + (initial ? 2500 : 0));
    }, 120_000);
  }
});

describe('SIGKILL in the middle of writes', () => {
  for (const [label, initial] of [
    ['small graph', ''],
    ['journal', bigGraph(2500)],
  ] as const) {
    it(`keeps every acknowledged write and a loadable file (${label})`, async () => {
      using dir = tempDir();
      const path = join(dir.path, 'memory.jsonl');
      writeFileSync(path, initial);
      const acknowledged: string[] = [];
      for (let round = 0; round < 4; round++) {
        const proc = await spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'error'] });
        let stop = false;
        const writer = async (w: number) => {
          for (let i = 0; !stop; i++) {
            const name = `R${round}-W${w}-${i}`;
            try {
              const r = await proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(name)] } });
              if (!r.isError) acknowledged.push(name);
            } catch {
              return;
            }
          }
        };
        const writers = Array.from({ length: 8 }, (_, w) => writer(w));
        await new Promise((r) => setTimeout(r, 150 + round * 70));
        process.kill(proc.transport.pid!, 'SIGKILL');
        stop = true;
        await Promise.all(writers);
        await Promise.resolve(proc[Symbol.asyncDispose]()).catch(() => {});
        // The snapshot is always a complete file the reference can parse.
        expect(() => referenceLoad(readFileSync(path, 'utf8'))).not.toThrow();
      }
      expect(acknowledged.length).toBeGreaterThan(20);
      const names = await countIn(path);
      expect(acknowledged.filter((n) => !names.has(n))).toEqual([]);
    }, 120_000);
  }
});
