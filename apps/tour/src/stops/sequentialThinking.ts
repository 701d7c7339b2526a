import { callTool, defineStop } from '../stop.js';

export const sequentialThinking = defineStop({
  title: 'sequential-thinking: numbered, revisable thoughts',
  pkg: '@mcpkit/server-sequential-thinking',
  prepare: async () => ({ env: { DISABLE_THOUGHT_LOGGING: 'true' }, state: undefined }),
  async visit(client, t) {
    const { tools } = await client.listTools();
    t.call('tools/list');
    t.reply(tools.map((tool) => `${tool.name} — ${tool.title}`).join('\n'));
    t.note(
      'Three thoughts, one of them revising the first, then a branch. Strings like "2" and "true" are coerced, as LLM clients send them.',
    );
    await callTool(client, t, 'sequentialthinking', {
      thought: 'The bug report says saves are lost when two windows are open.',
      thoughtNumber: 1,
      totalThoughts: 3,
      nextThoughtNeeded: true,
    });
    await callTool(client, t, 'sequentialthinking', {
      thought: 'Each window runs its own server process; both rewrite the same file.',
      thoughtNumber: '2',
      totalThoughts: '3',
      nextThoughtNeeded: 'true',
    });
    await callTool(client, t, 'sequentialthinking', {
      thought: 'Revision: it is not only two windows — any two processes race without a lock.',
      thoughtNumber: 3,
      totalThoughts: 4,
      isRevision: true,
      revisesThought: 1,
      nextThoughtNeeded: true,
    });
    await callTool(client, t, 'sequentialthinking', {
      thought: 'Alternative: an append-only journal instead of whole-file rewrites.',
      thoughtNumber: 4,
      totalThoughts: 4,
      branchFromThought: 2,
      branchId: 'journal',
      nextThoughtNeeded: false,
    });
    t.call('resources/read sequentialthinking://history');
    const history = await client.readResource({ uri: 'sequentialthinking://history' });
    const snapshot = JSON.parse((history.contents[0] as { text: string }).text) as {
      thoughts: unknown[];
      branches: Record<string, unknown[]>;
    };
    t.reply(`${snapshot.thoughts.length} thoughts, branches: ${Object.keys(snapshot.branches).join(', ')}`);
  },
});
