import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, defineStop } from '../stop.js';

export const memory = defineStop({
  title: 'memory: a knowledge graph in a JSONL file',
  pkg: '@mcpkit/server-memory',
  async prepare() {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-tour-memory-'));
    const file = join(dir, 'memory.jsonl');
    return { args: ['--memory-path', file], cleanup: () => rm(dir, { recursive: true, force: true }), state: { file } };
  },
  async visit(client, t, { file: path }) {
    const { tools } = await client.listTools();
    t.call('tools/list');
    t.reply(tools.map((tool) => tool.name).join(', '));
    await callTool(client, t, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['Writes the scheduler', 'Drinks her coffee black'] },
        { name: 'Scheduler', entityType: 'project', observations: ['Runs nightly jobs'] },
      ],
    });
    await callTool(client, t, 'create_relations', { relations: [{ from: 'Ada', to: 'Scheduler', relationType: 'maintains' }] });
    await callTool(client, t, 'add_observations', {
      observations: [{ entityName: 'Scheduler', contents: ['Moved to cron syntax in v2'] }],
    });
    t.note('Search is a case-insensitive substring match over names, types and observations:');
    await callTool(client, t, 'search_nodes', { query: 'COFFEE' });
    t.note('A failing call changes nothing and says why:');
    await callTool(client, t, 'add_observations', { observations: [{ entityName: 'Nobody', contents: ['x'] }] });
    await callTool(client, t, 'open_nodes', { names: ['Scheduler'] });
    // Each write is one append to memory.jsonl.wal (fsynced before the call answers); the journal is folded into
    // memory.jsonl 2 s after the last write (and on exit). Wait for that, at most 10 s.
    let file = '';
    for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      file = await readFile(path, 'utf8').catch(() => '');
      if (file.includes('"relationType":"maintains"')) break;
    }
    t.note('Each write was appended to memory.jsonl.wal and fsynced before its call answered; 2 s after the last write');
    t.note(
      `the journal is folded into memory.jsonl, the reference's JSONL format, one record a line (${file.split('\n').filter(Boolean).length} lines):`,
    );
    t.reply(file.split('\n').filter(Boolean).slice(0, 3).join('\n'));
  },
});
