import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForeignFileError, openFileStore } from '../src/server.js';
import { referenceLoad, referenceSave, tempDir } from './helpers.js';
import { capture, fixture, sample } from './store/fileFixture.js';
import { testStore } from './storeSuite.js';

testStore('file (small graph: whole-file rewrites)', () => fixture());
testStore('file (journal)', () => fixture({ smallFileBytes: 0 }));
describe('file format: the reference’s, line for line', () => {
  it('33. writes entities then relations, reference key order, no trailing newline', async () => {
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    // Every write goes to the journal first; closing folds it into the file.
    await f.store.close();
    expect(f.text()).toBe(referenceSave(sample));
    const lines = f.text().split('\n');
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['entity', 'entity', 'relation']);
    expect(referenceLoad(f.text())).toEqual(sample);
  });

  it('a journal-mode graph is folded into the same file on close', async () => {
    await using f = await fixture({ smallFileBytes: 0 });
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    expect(existsSync(`${f.path}.wal`)).toBe(true);
    await f.store.close();
    expect(f.text()).toBe(referenceSave(sample));
    expect(existsSync(`${f.path}.wal`)).toBe(true);
    const again = await f.open();
    expect(await again.readGraph()).toMatchObject(sample);
  });

  it('folds the journal in a moment after the last write (compactDelayMs)', async () => {
    await using f = await fixture({ smallFileBytes: 0, compactDelayMs: 30 });
    await f.store.createEntities(sample.entities);
    await f.store.createRelations(sample.relations);
    // Folded by the store's own timer, with no call and no close: polled on the file.
    await expect.poll(f.text).toBe(referenceSave(sample));
  });

  it('loads a reference file unchanged: trailing newline, CRLF, duplicate names and relations, other record types', async () => {
    const text = [
      '{"type":"_aim","source":"mcp-knowledge-graph"}',
      '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}\r',
      '{"type":"entity","name":"Alice","entityType":"dup","observations":[]}',
      '{"type":"entity","name":"NoObs","entityType":"t"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '',
    ].join('\n');
    await using f = await fixture({}, { 'memory.jsonl': text });
    const g = await f.store.readGraph();
    expect(g.entities).toEqual([
      { name: 'Alice', entityType: 'person', observations: ['likes tea'] },
      { name: 'Alice', entityType: 'dup', observations: [] },
      { name: 'NoObs', entityType: 't', observations: [] },
    ]);
    expect(g.relations).toHaveLength(2);
    // The entity without observations no longer breaks search (servers#1818).
    expect((await f.store.searchNodes('noobs')).entities).toHaveLength(1);
    // Both Alices open; add_observations goes to the first, as in the reference.
    expect((await f.store.openNodes(['Alice'])).entities).toHaveLength(2);
    await f.store.addObservations([{ entityName: 'Alice', contents: ['x'] }]);
    await f.store.close(); // folds the journal into the file
    const lines = f.text().split('\n');
    expect(lines[0]).toBe('{"type":"_aim","source":"mcp-knowledge-graph"}');
    expect(lines.slice(1)).toEqual([
      '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","x"]}',
      '{"type":"entity","name":"Alice","entityType":"dup","observations":[]}',
      '{"type":"entity","name":"NoObs","entityType":"t","observations":[]}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
      '{"type":"relation","from":"Alice","to":"B","relationType":"r"}',
    ]);
    expect(referenceLoad(f.text()).entities).toHaveLength(3);
  });

  it('creates a new file with mode 0600 and keeps the mode of an existing one', async () => {
    if (process.platform === 'win32') return;
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    expect(statSync(f.path).mode & 0o777).toBe(0o600);
    await using g = await fixture({}, { 'memory.jsonl': '' });
    const { chmodSync } = await import('node:fs');
    chmodSync(g.path, 0o640);
    await g.store.createEntities(sample.entities);
    expect(statSync(g.path).mode & 0o777).toBe(0o640);
  });

  it('creates missing parent folders', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'a', 'b', 'memory.jsonl');
    const store = await openFileStore({ path });
    await store.createEntities(sample.entities);
    await store.close();
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toHaveLength(2);
  });
});

describe('corrupt lines and foreign files', () => {
  it('reports a corrupt line, loads the rest, and moves the line verbatim to memory.jsonl.corrupt', async () => {
    const bad = '{"type":"entity","name":"Half';
    const text = `${referenceSave(sample).split('\n')[0]}\n${bad}\n${referenceSave(sample).split('\n').slice(1).join('\n')}`;
    const { lines, logger } = capture();
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, text);
    const store = await openFileStore({ path, logger });
    expect((await store.readGraph()).entities).toHaveLength(2);
    expect(lines.join('')).toMatch(/line 2 is not a valid record/);
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
    // The file is a clean reference file again, and the line is not lost on later saves.
    expect(referenceLoad(readFileSync(path, 'utf8'))).toEqual(sample);
    await store.createEntities([{ name: 'C', entityType: 't', observations: [] }]);
    await store.close();
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
  });

  it('refuses to open a file that is not a memory graph, and leaves it untouched', async () => {
    for (const text of ['{\n  "editor.fontSize": 14\n}\n', 'export PATH=/usr/bin\n', '{"test":"data"}', '[1,2,3]']) {
      using dir = tempDir();
      const path = join(dir.path, 'settings.json');
      writeFileSync(path, text);
      await expect(openFileStore({ path })).rejects.toBeInstanceOf(ForeignFileError);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(readdirSync(dir.path)).toEqual(['settings.json']);
    }
  });

  it('refuses a directory', async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, 'memory.jsonl'));
    await expect(openFileStore({ path: join(dir.path, 'memory.jsonl') })).rejects.toBeInstanceOf(ForeignFileError);
  });

  it('refuses to overwrite the file when it is replaced by a foreign one while running', async () => {
    await using f = await fixture();
    await f.store.createEntities(sample.entities);
    writeFileSync(f.path, '# my notes\nnot json\n');
    await expect(f.store.createEntities([{ name: 'X', entityType: 't', observations: [] }])).rejects.toThrow(
      'The memory file was replaced by something that is not a knowledge graph; refusing to read or overwrite it.',
    );
    await expect(f.store.readGraph()).rejects.toThrow(/not a knowledge graph/);
    expect(f.text()).toBe('# my notes\nnot json\n');
  });
});
