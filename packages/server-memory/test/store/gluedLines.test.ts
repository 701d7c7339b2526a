/**
 * A memory file without a final newline (the reference writes none, and so do some editors): a line
 * another program appends to it runs on from the last record (`{…}{…}`). Both records are read, not
 * set aside; and what this server appends (journal, `.corrupt`) always starts on a line of its own.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, type FileStoreOptions, openFileStore } from '../../src/server.js';
import { appendDurably } from '../../src/store/durable.js';
import { entityLine, parseGraphFile } from '../../src/store/jsonl.js';
import { referenceLoad, referenceSave, tempDir } from '../helpers.js';

const entity = (name: string, observations = ['o']) => ({ name, entityType: 'person', observations });
const line = (e: ReturnType<typeof entity>) => entityLine(e);

/** Opens the file through the server and a real SDK client; the returned `close` closes both. */
async function serve(path: string, options: Partial<FileStoreOptions> = {}) {
  const store = await openFileStore({ path, compactDelayMs: 60_000, ...options });
  const pair = await connectInMemory(createMemoryServer({ store }));
  const call = async (name: string, args: Record<string, unknown>) => {
    const res = (await pair.client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
    expect(res.isError).toBeFalsy();
    return JSON.parse(res.content[0]!.text);
  };
  const names = async () => (await call('read_graph', {})).entities.map((e: { name: string }) => e.name);
  return {
    call,
    names,
    close: async () => {
      await pair[Symbol.asyncDispose]();
      await store.close();
    },
  };
}

describe('a file without a final newline', () => {
  it('a write through the server, then a reload: the last entity and the new one are both there, nothing in .corrupt', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, referenceSave({ entities: [entity('Alice'), entity('Bob')], relations: [] })); // no final newline
    const first = await serve(path);
    await first.call('create_entities', { entities: [entity('Carol')] });
    await first.close();
    const again = await serve(path);
    expect(await again.names()).toEqual(['Alice', 'Bob', 'Carol']);
    await again.close();
    expect(existsSync(`${path}.corrupt`)).toBe(false);
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual([entity('Alice'), entity('Bob'), entity('Carol')]);
  });

  it('a line another program appended (merged with the last entity): both are loaded, nothing in .corrupt, and the file is rewritten one record per line', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, referenceSave({ entities: [entity('Alice'), entity('Bob')], relations: [] }));
    appendFileSync(path, line(entity('Carol'))); // `echo … >> memory.jsonl`, on a file without a final newline
    expect(readFileSync(path, 'utf8')).toContain('"observations":["o"]}{"type":"entity","name":"Carol"');
    const server = await serve(path);
    expect(await server.names()).toEqual(['Alice', 'Bob', 'Carol']);
    await server.call('create_entities', { entities: [entity('Dave')] });
    await server.close();
    expect(existsSync(`${path}.corrupt`)).toBe(false);
    // Rewritten in the reference's format: the reference loads it again.
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual(['Alice', 'Bob', 'Carol', 'Dave'].map((n) => entity(n)));
  });

  it('loads a file that is only a merged line, also in the background (the start-up check looks at the first line)', async () => {
    for (const load of ['wait', 'background'] as const) {
      using dir = tempDir();
      const path = join(dir.path, 'memory.jsonl');
      writeFileSync(
        path,
        `${line(entity('Alice'))}${JSON.stringify({ type: 'relation', from: 'Alice', to: 'Bob', relationType: 'knows' })}`,
      );
      const server = await serve(path, { load });
      expect(await server.call('read_graph', {})).toEqual({
        entities: [entity('Alice')],
        relations: [{ from: 'Alice', to: 'Bob', relationType: 'knows' }],
      });
      await server.close();
      expect(existsSync(`${path}.corrupt`)).toBe(false);
    }
  });
});

describe('reading a merged line', () => {
  const read = (text: string) => {
    const entities: unknown[] = [];
    const relations: unknown[] = [];
    const parsed = parseGraphFile(text, {
      entity: ({ name, entityType, observations }) => entities.push({ name, entityType, observations }),
      relation: ({ from, to, relationType }) => relations.push({ from, to, relationType }),
    });
    return { entities, relations, parsed };
  };

  it('splits two or more records, with a `}{` inside a string, escapes, or spaces between them', () => {
    const tricky = entity('A}{"type":"entity"', ['x}{y', 'say \\"}{\\"', '{[}]']);
    const text = `${line(tricky)}${line(entity('B'))} \t${JSON.stringify({ type: 'relation', from: 'A', to: 'B', relationType: 'r' })}`;
    const { entities, relations, parsed } = read(text);
    expect(entities).toEqual([tricky, entity('B')]);
    expect(relations).toEqual([{ from: 'A', to: 'B', relationType: 'r' }]);
    expect(parsed.corrupt).toEqual([]);
    expect(parsed.split).toEqual([1]);
    expect(parsed.records).toBe(3);
  });

  it('keeps a foreign record found in a merged line, as the reader keeps any foreign record', () => {
    const marker = JSON.stringify({ type: 'peer-marker', v: 1 });
    const { entities, parsed } = read(`${line(entity('A'))}${marker}`);
    expect(entities).toEqual([entity('A')]);
    expect(parsed.foreignRecords).toEqual([marker]);
  });

  it('a merged line with a part that is not a record stays one unreadable line, verbatim (nothing of it is loaded)', () => {
    for (const bad of [
      `${line(entity('A'))}{"name":"no type"}`,
      `${line(entity('A'))}{"type":"entity","name":"Half`,
      `${line(entity('A'))}{"type":"entity","entityType":"no name"}`,
      `${line(entity('A'))}[1,2]`,
      `${line(entity('A'))} trailing words`,
    ]) {
      const { entities, parsed } = read(`${line(entity('Z'))}\n${bad}`);
      expect(entities).toEqual([entity('Z')]);
      expect(parsed.corrupt).toEqual([expect.objectContaining({ line: 2, text: bad })]);
      expect(parsed.split).toEqual([]);
    }
  });

  it('the server sets nothing aside for a merged line, and does for one that is not records', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const bad = `${line(entity('B'))}{"type":"entity","name":"Half`;
    writeFileSync(path, `${line(entity('A'))}${line(entity('C'))}\n${bad}`);
    const server = await serve(path);
    expect(await server.names()).toEqual(['A', 'C']);
    await server.close();
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`${bad}\n`);
  });
});

describe('appending never runs on from an unterminated last line', () => {
  it('a journal append to a file whose last byte is not a newline starts on a new line', () => {
    using dir = tempDir();
    const path = join(dir.path, 'f');
    writeFileSync(path, '{"a":1}');
    expect(appendDurably(path, '{"b":2}\n')).toBe(9);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(appendDurably(path, '{"c":3}\n')).toBe(8);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
    appendDurably(join(dir.path, 'new'), 'x\n');
    expect(readFileSync(join(dir.path, 'new'), 'utf8')).toBe('x\n');
  });

  it('lines set aside into a .corrupt that someone left without a final newline start on a line of their own', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(`${path}.corrupt`, 'an earlier line, edited by hand');
    const bad = '{"type":"entity","name":"Half';
    writeFileSync(path, `${line(entity('A'))}\n${bad}`);
    const server = await serve(path);
    expect(await server.names()).toEqual(['A']);
    await server.close();
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe(`an earlier line, edited by hand\n${bad}\n`);
  });
});
