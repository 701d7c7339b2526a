/**
 * A user who ran the reference with `npx -y @modelcontextprotocol/server-memory` and no MEMORY_FILE_PATH, then
 * changes only the command: the real reference package (a devDependency) is laid out in a home folder's npx
 * cache as npx lays it out, writes its graph there through a real client, and our built bin started with the same
 * home must serve that graph, leaving the reference's file as it was.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../src/server.js';
import { tempDir } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const referencePackage = realpathSync(fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-memory', import.meta.url)));

/** The folder of package `name` as Node finds it from `fromDir` (walking up through `node_modules`). */
function packageDir(name: string, fromDir: string): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} not found from ${fromDir}`);
  }
}

/**
 * `<home>/.npm/_npx/<hash>/node_modules/…` as npx lays it out: the reference copied in, and its dependencies and
 * theirs linked flat beside it (npm hoists them; the reference imports zod, which only its SDK declares).
 */
function layOutNpxCache(home: string, hash: string): string {
  const modules = join(home, '.npm', '_npx', hash, 'node_modules');
  const target = join(modules, '@modelcontextprotocol', 'server-memory');
  cpSync(referencePackage, target, { recursive: true });
  const queue: [string, string][] = [[referencePackage, referencePackage]];
  const linked = new Set<string>();
  while (queue.length > 0) {
    const [dir] = queue.shift() as [string, string];
    const { dependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(dependencies)) {
      if (linked.has(name)) continue;
      linked.add(name);
      const real = packageDir(name, dir);
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      symlinkSync(real, join(modules, name));
      queue.push([real, name]);
    }
  }
  return join(target, 'dist', 'index.js');
}

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe('switching from the reference by changing only the command', () => {
  it("serves the graph the reference kept in npx's cache, and leaves that file alone", async () => {
    using home = tempDir();
    const referenceBin = layOutNpxCache(home.path, '0123456789abcdef');
    const env = { HOME: home.path };
    {
      await using reference = await spawnStdio(referenceBin, { env });
      await reference.client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      });
      await reference.client.callTool({
        name: 'create_relations',
        arguments: { relations: [{ from: 'Ada', to: 'Ada', relationType: 'admires' }] },
      });
    }
    const referenceFile = join(dirname(referenceBin), 'memory.jsonl');
    const before = readFileSync(referenceFile);

    const ours = await spawnStdio(bin, { env });
    const graph = JSON.parse(text(await ours.client.callTool({ name: 'read_graph', arguments: {} })));
    expect(graph.entities).toEqual([{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }]);
    expect(graph.relations).toEqual([{ from: 'Ada', to: 'Ada', relationType: 'admires' }]);
    const ourFile = join(home.path, '.local', 'share', 'mcpkit-memory', 'memory.jsonl');
    expect(ours.stderr()).toContain(`found the memory file of @modelcontextprotocol/server-memory in npx's cache (${referenceFile}`);
    expect(ours.stderr()).toContain(`copied it to ${ourFile}`);

    // Our writes go to our file; the reference's stays byte for byte what the reference wrote.
    await ours.client.callTool({
      name: 'add_observations',
      arguments: { observations: [{ entityName: 'Ada', contents: ['kept by mcpkit'] }] },
    });
    await ours[Symbol.asyncDispose]();
    expect(readFileSync(referenceFile)).toEqual(before);
    const store = await openFileStore({ path: ourFile });
    expect((await store.readGraph()).entities).toEqual([
      { name: 'Ada', entityType: 'person', observations: ['wrote the first program', 'kept by mcpkit'] },
    ]);
    await store.close();
  });
});
