import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, type Stop } from '../stop.js';

let dir = '';

export const memory: Stop = {
  title: 'memory: a knowledge graph in a JSONL file',
  pkg: '@mcpkit/server-memory',
  async prepare() {
    dir = await mkdtemp(join(tmpdir(), 'mcpkit-tour-memory-'));
    return { args: ['--memory-path', join(dir, 'memory.jsonl')], cleanup: () => rm(dir, { recursive: true, force: true }) };
  },
  async visit(client, t) {
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
    const file = await readFile(join(dir, 'memory.jsonl'), 'utf8').catch(() => '');
    t.note(`The file is the reference's JSONL format, one record a line (${file.split('\n').filter(Boolean).length} lines):`);
    t.reply(file.split('\n').filter(Boolean).slice(0, 3).join('\n'));
  },
};
