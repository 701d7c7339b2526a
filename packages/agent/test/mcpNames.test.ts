import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createToolNameTable, namespaceToolName } from '../src/index.js';

const hash8 = (server: string, tool: string) => createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);

describe('namespaceToolName', () => {
  it('joins server and tool with __', () => {
    expect(namespaceToolName('memory', 'create_entities')).toBe('memory__create_entities');
  });

  it('replaces every character outside [A-Za-z0-9_-] with _', () => {
    expect(namespaceToolName('my server.v2', 'get/file:ä')).toBe('my_server_v2__get_file__');
    expect(namespaceToolName('a-b', 'c-D9')).toBe('a-b__c-D9');
  });

  it('keeps a name of exactly 64 characters as is', () => {
    const tool = 't'.repeat(64 - 'srv__'.length);
    expect(namespaceToolName('srv', tool)).toBe(`srv__${tool}`);
  });

  it('cuts longer names to exactly 64 characters ending in _ and 8 hex of sha256(server NUL tool)', () => {
    const server = 'a-rather-long-server-name';
    const tool = 'and_an_even_longer_tool_name_that_goes_on_and_on_and_on';
    const name = namespaceToolName(server, tool);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(name.endsWith(`_${hash8(server, tool)}`)).toBe(true);
    expect(name.startsWith('a-rather-long-server-name__and_an_even')).toBe(true);
    // Two long names that share their first 55 characters still differ.
    expect(namespaceToolName(server, `${tool}_x`)).not.toBe(namespaceToolName(server, `${tool}_y`));
  });
});

describe('createToolNameTable', () => {
  it('gives the plain name when it is free, a hashed one to the second server that sanitises alike', () => {
    const table = createToolNameTable();
    expect(table.assign('a.b', 'read')).toBe('a_b__read');
    const second = table.assign('a_b', 'read');
    expect(second).toBe(`a_b__read_${hash8('a_b', 'read')}`);
    expect(table.assign('a b', 'read')).toBe(`a_b__read_${hash8('a b', 'read')}`);
    expect(table.assign('a_b', 'write')).toBe('a_b__write');
  });

  it('stays unique even for a server that lists the same tool twice, and is deterministic', () => {
    const run = () => {
      const table = createToolNameTable();
      return ['x', 'x', 'x'].map((tool) => table.assign('s', tool));
    };
    const names = run();
    expect(new Set(names).size).toBe(3);
    expect(names.every((n) => n.length <= 64)).toBe(true);
    expect(run()).toEqual(names);
  });

  it('keeps hashed long names unique and within 64 characters', () => {
    const table = createToolNameTable();
    const tool = 'x'.repeat(80);
    const first = table.assign('s.1', tool);
    const second = table.assign('s_1', tool);
    expect(first).not.toBe(second);
    expect(first).toHaveLength(64);
    expect(second).toHaveLength(64);
  });
});
