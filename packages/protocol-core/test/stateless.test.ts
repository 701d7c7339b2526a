/**
 * `--stateless` must not lie: what needs a session answers an error naming the reason, never a success that
 * does nothing; 2026 progress still arrives (the response streams).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools } from '../src/define.js';
import { textResult } from '../src/results.js';
import { STATELESS_SUBSCRIPTIONS, servesStatelessRequest } from '../src/stateless.js';
import { enableSubscriptions } from '../src/subscriptions.js';
import { createTaskLayer } from '../src/tasks/index.js';
import { startHttp } from '../src/testing/index.js';

function statelessApp() {
  return {
    createServer: () => {
      const server = createMcpServer({ name: 'stateless-test', version: '0.0.0' });
      enableSubscriptions(server);
      server.registerResource('item', 'demo://item', {}, async () => ({ contents: [{ uri: 'demo://item', text: 'item' }] }));
      const work = defineTool({
        name: 'work',
        title: 'Work',
        description: 'Reports `steps` steps of progress.',
        input: { steps: z.number().int() },
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        handler: async ({ steps }, _ctx: unknown, extra) => {
          const progressToken = extra.mcpReq._meta?.progressToken;
          for (let i = 1; i <= steps && progressToken !== undefined; i++)
            await extra.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } });
          return textResult(`did ${steps} steps; stateless request: ${servesStatelessRequest(server)}`);
        },
      });
      registerTools(server, {}, [work]);
      const tasks = createTaskLayer(server);
      tasks.registerTool(
        {
          name: 'slow',
          title: 'Slow',
          description: 'Runs as a task.',
          input: {},
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          run: async () => textResult('done'),
        },
        {},
      );
      return server;
    },
  };
}

describe('--stateless, 2025 clients', () => {
  it('refuses resources/subscribe naming the reason, instead of {} and silence', async () => {
    await using http = await startHttp(statelessApp(), { stateless: true });
    const client = await http.connect();
    await expect(client.subscribeResource({ uri: 'demo://item' })).rejects.toThrow(STATELESS_SUBSCRIPTIONS);
    await expect(client.unsubscribeResource({ uri: 'demo://item' })).rejects.toThrow(STATELESS_SUBSCRIPTIONS);
  });

  it('answers a task tool with why it cannot run, and tasks/get likewise', async () => {
    await using http = await startHttp(statelessApp(), { stateless: true });
    const client = await http.connect();
    const result = await client.callTool({ name: 'slow', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^this server runs --stateless: slow \(it runs as a task\) needs a session/) },
    ]);
    await expect(client.request({ method: 'tasks/get', params: { taskId: 'x' } } as never, z.unknown() as never)).rejects.toThrow(
      /this server runs --stateless: tasks needs a session/,
    );
  });

  it('a session keeps working as before (no --stateless)', async () => {
    await using http = await startHttp(statelessApp());
    const client = await http.connect();
    await expect(client.subscribeResource({ uri: 'demo://item' })).resolves.toEqual({});
    expect((await client.callTool({ name: 'work', arguments: { steps: 1 } })).content).toEqual([
      { type: 'text', text: 'did 1 steps; stateless request: false' },
    ]);
  });
});

describe('--stateless, 2026 clients', () => {
  it.each([true, false])('streams progress on the response (stateless: %s)', async (stateless) => {
    await using http = await startHttp(statelessApp(), { stateless });
    const client = await http.connect({ mode: '2026-07-28' });
    const seen: number[] = [];
    const result = await client.callTool({ name: 'work', arguments: { steps: 3 } }, { onprogress: (p) => void seen.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'did 3 steps; stateless request: false' }]);
    expect(seen).toEqual([1, 2, 3]);
  });
});
