/**
 * Tasks (SEP-1686). Server-side: `simulate-research-query` through the SDK client's task API (create, status
 * notifications, `tasks/get`, `tasks/result`, `tasks/list` with pagination, `tasks/cancel`, `input_required`
 * with a queued elicitation). Client-side: the `*-async` tools, where the client runs the task and the
 * server polls it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { researchReport } from '../../src/profiles/current/tools/simulateResearchQuery.js';
import { createTestClock, type TestClock } from '../clock.js';
import { connectClient, connectCurrentV1, currentServer, FAST, FULL_CAPABILITIES, text, texts, until } from './helpers.js';
import { taskClient } from './taskClient.js';

type Pair = Awaited<ReturnType<typeof connectCurrentV1>>;

/** `connectCurrentV1` with the server on a test clock (its research stages, polls and roots timer), and the clock. */
async function connectClocked(...[options, client]: Parameters<typeof connectCurrentV1>) {
  const clock = createTestClock();
  const pair = await connectCurrentV1({ ...options, scheduler: clock.scheduler }, client);
  return Object.assign(pair, { clock });
}

/** Runs `simulate-research-query` as a task to its end, its stages on the pair's clock; returns every message of the stream. */
async function research(pair: Pair & { clock: TestClock }, args: Record<string, unknown>) {
  const stream = async () => {
    const messages = [];
    for await (const message of pair.client.experimental.tasks.callToolStream(
      { name: 'simulate-research-query', arguments: args },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
    return messages;
  };
  return pair.clock.run(stream());
}

function reportOf(messages: Awaited<ReturnType<typeof research>>): string {
  const last = messages.at(-1);
  if (last?.type !== 'result') throw new Error(`the stream ended with ${JSON.stringify(last)}`);
  return text(last.result);
}

/** The reference's report for topic `Quantum` (the spec's §1A.4, observed), verbatim. */
const QUANTUM_REPORT = `# Research Report: Quantum

## Research Parameters
- **Topic**: Quantum


## Synthesis
This research query was processed through 4 stages:
- Stage 1: Gathering sources ✓
- Stage 2: Analyzing content ✓
- Stage 3: Synthesizing findings ✓
- Stage 4: Generating report ✓

---

## About This Demo (SEP-1686: Tasks)

This tool demonstrates MCP's task-based execution pattern for long-running operations:

**Task Lifecycle Demonstrated:**
1. \`tools/call\` with \`task\` parameter → Server returns \`CreateTaskResult\` (not the final result)
2. Client polls \`tasks/get\` → Server returns current status and \`statusMessage\`
3. Status progressed: \`working\` → \`completed\`
4. Client calls \`tasks/result\` → Server returns this final result


**Key Concepts:**
- Tasks enable "call now, fetch later" patterns
- \`statusMessage\` provides human-readable progress updates
- Tasks have TTL (time-to-live) for automatic cleanup
- \`pollInterval\` suggests how often to check status
- Elicitation requests use \`relatedTask\` to queue via tasks/result (works on all transports)

*This is a simulated research report from the Everything MCP Server.*
`;

describe('server-side tasks: simulate-research-query', () => {
  it('advertises the tasks capability and requires task augmentation', async () => {
    await using pair = await connectCurrentV1();
    expect(pair.client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tool = (await pair.client.listTools()).tools.find((t) => t.name === 'simulate-research-query');
    expect(tool?.execution).toEqual({ taskSupport: 'required' });
    const plain = (await pair.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'x' } } },
      CallToolResultSchema,
    )) as CallToolResult;
    expect(plain).toEqual({
      content: [
        { type: 'text', text: "MCP error -32601: Tool simulate-research-query requires task augmentation (taskSupport: 'required')" },
      ],
      isError: true,
    });
  });

  it('goes working → completed through the four stages, with status notifications, and returns the reference report', async () => {
    await using pair = await connectClocked();
    const statuses: string[] = [];
    pair.client.setNotificationHandler(
      TaskStatusNotificationSchema,
      (n) => void statuses.push(`${n.params.status}: ${n.params.statusMessage ?? ''}`),
    );
    const messages = await research(pair, { topic: 'Quantum' });
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 300_000, pollInterval: 5 } });
    expect(reportOf(messages)).toBe(QUANTUM_REPORT);
    expect(pair.clock.now).toBe(4 * FAST.researchStageMs!); // four stages
    expect(researchReport('Quantum', undefined)).toEqual({ content: [{ type: 'text', text: QUANTUM_REPORT }] });
    const last = messages.at(-1) as { result: CallToolResult };
    expect(last.result._meta).toEqual({
      'io.modelcontextprotocol/related-task': { taskId: (messages[0] as { task: { taskId: string } }).task.taskId },
    });
    await until(() => statuses.some((s) => s.startsWith('completed')), 2000, 'the completed notification');
    expect(statuses).toEqual([
      'working: Gathering sources...',
      'working: Analyzing content...',
      'working: Synthesizing findings...',
      'working: Generating report...',
      'completed: Generating report...',
    ]);
  });

  it('serves tasks/get and tasks/result, ignoring the ttl the client asked for', async () => {
    await using pair = await connectClocked();
    const created = (await pair.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'Quantum' }, task: { ttl: 5 } } },
      CallToolResultSchema.or((await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema),
    )) as { task: { taskId: string; ttl: number } };
    expect(created.task.ttl).toBe(300_000);
    const { taskId } = created.task;
    const got = await pair.client.experimental.tasks.getTask(taskId);
    expect(got).toMatchObject({ taskId, pollInterval: 5 });
    const result = await pair.clock.run(pair.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema));
    expect(text(result)).toBe(QUANTUM_REPORT);
    expect((await pair.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
  });

  it('asks an ambiguous query for a clarification: input_required, an elicitation queued for tasks/result, the report says so', async () => {
    await using pair = await connectClocked({}, { capabilities: { elicitation: {} } });
    const requests: Record<string, unknown>[] = [];
    pair.client.setRequestHandler(ElicitRequestSchema, (request) => {
      requests.push(request.params);
      return { action: 'accept', content: { interpretation: 'snake' } };
    });
    const messages = await research(pair, { topic: 'Python stuff', ambiguous: true });
    expect(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required')).toBe(true);
    expect(requests).toHaveLength(1);
    const { _meta, ...params } = requests[0]!;
    expect(params).toEqual({
      message: 'The research query "Python stuff" could have multiple interpretations. Please clarify what you\'re looking for:',
      requestedSchema: {
        type: 'object',
        properties: {
          interpretation: {
            type: 'string',
            title: 'Clarification',
            description: 'Which interpretation of the topic do you mean?',
            oneOf: [
              { const: 'programming', title: 'Python programming language' },
              { const: 'snake', title: 'Python snake species' },
              { const: 'comedy', title: 'Monty Python comedy group' },
            ],
          },
        },
        required: ['interpretation'],
      },
    });
    const report = reportOf(messages);
    expect(report).toMatch(
      /^# Research Report: Python stuff \(snake\)\n\n## Research Parameters\n- \*\*Topic\*\*: Python stuff\n- \*\*Clarification\*\*: snake\n\n/,
    );
    expect(report).toContain('3. Status progressed: `working` → `input_required` → `working` → `completed`\n');
    expect(report).toContain(
      '**Elicitation Flow:**\nWhen the query was ambiguous, the server sent an `elicitation/create` request\nto the client. The task status changed to `input_required` while awaiting user input.\nAfter receiving clarification ("snake"), the task resumed processing and completed.\n\n**Key Concepts:**',
    );
  });

  it.each([
    ['decline', { action: 'decline' }, 'User declined - using default interpretation'],
    ['cancel', { action: 'cancel' }, 'User cancelled - using default interpretation'],
    ['accept without a choice', { action: 'accept', content: {} }, 'User accepted without selection'],
  ])('uses a default interpretation when the user answers %s', async (_label, answer, clarification) => {
    await using pair = await connectClocked({}, { capabilities: { elicitation: {} } });
    pair.client.setRequestHandler(ElicitRequestSchema, () => answer as never);
    const report = reportOf(await research(pair, { topic: 'Tides', ambiguous: true }));
    expect(report).toContain(`# Research Report: Tides (${clarification})\n`);
    expect(report).toContain(`After receiving clarification ("${clarification}")`);
  });

  it('carries on with a default when the elicitation fails, and says so', async () => {
    const warnings: string[] = [];
    const logger = { ...(await import('@mcpkit/protocol-core')).silentLogger, warn: (m: string) => void warnings.push(m) };
    await using pair = await connectClocked({ logger }, { capabilities: { elicitation: {} } });
    pair.client.setRequestHandler(ElicitRequestSchema, () => {
      throw new Error('no user here');
    });
    const report = reportOf(await research(pair, { topic: 'Tides', ambiguous: true }));
    expect(report).toContain('# Research Report: Tides (technical (default - elicitation unavailable))\n');
    expect(report).toContain('**Note:** Elicitation failed and a default interpretation was used.\n');
    // SDK v2 keeps the client's error message as it came (v1 prefixed it with `MCP error -32603: `).
    expect(warnings).toEqual([expect.stringMatching(/^Elicitation failed for task \w+: no user here$/)]);
  });

  it('does not ask a client without elicitation, even for an ambiguous query', async () => {
    await using pair = await connectClocked();
    const messages = await research(pair, { topic: 'Quantum', ambiguous: true });
    expect(messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required')).toBe(false);
    expect(reportOf(messages)).toBe(QUANTUM_REPORT);
  });

  it('stops a cancelled task: it stays cancelled and never gets a result', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrentV1({ intervals: { ...FAST, researchStageMs: 40 }, scheduler: clock.scheduler });
    await clock.advance(0); // the first roots/list
    const { task } = (await pair.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'Quantum' }, task: {} } },
      (
        await import('@modelcontextprotocol/sdk/types.js')
      ).CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    await until(() => clock.pending === 1, 5000, 'the first stage'); // it is working when it is cancelled
    const cancelled = await pair.client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'Client cancelled task execution.' });
    await clock.advance(40);
    expect(clock.pending).toBe(0); // no second stage
    await clock.advance(3 * 40); // the four stages would be over by now
    expect(await pair.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    await expect(pair.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(
      'Cannot cancel task in terminal status: cancelled',
    );
  });

  it('pages tasks/list ten at a time', async () => {
    await using pair = await connectClocked(); // the clock stays put: the tasks stay working
    const { CreateTaskResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { task } = await pair.client.request(
        { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: `t${i}` }, task: {} } },
        CreateTaskResultSchema,
      );
      ids.push(task.taskId);
    }
    const first = await pair.client.experimental.tasks.listTasks();
    expect(first.tasks.map((t) => t.taskId)).toEqual(ids.slice(0, 10));
    expect(first.nextCursor).toBeDefined();
    const second = await pair.client.experimental.tasks.listTasks(first.nextCursor);
    expect(second.tasks.map((t) => t.taskId)).toEqual(ids.slice(10));
    expect(second.nextCursor).toBeUndefined();
  });

  it('keeps each session’s tasks to itself', async () => {
    const server = currentServer({ scheduler: createTestClock().scheduler }); // the task stays working
    const pair = await connectClient(server);
    const other = await connectClocked();
    const { CreateTaskResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { task } = await pair.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'x' }, task: {} } },
      CreateTaskResultSchema,
    );
    expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await expect(other.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    await pair[Symbol.asyncDispose]();
    await other[Symbol.asyncDispose]();
  });
});

const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Forty-two.' }, model: 'test-model', stopReason: 'endTurn' };

describe('client-side tasks: the *-async tools', () => {
  it('trigger-sampling-request-async: the client runs the sampling as a task; the server polls it and returns its result', async () => {
    const { pair, requests, clock } = await taskClient(async (_kind, store, taskId) => {
      await store.updateTaskStatus(taskId, 'working', 'thinking');
      await store.polled(taskId, 2);
      await store.storeTaskResult(taskId, 'completed', SAMPLED);
    });
    await using _ = pair;
    const result = await clock.run(
      pair.client.callTool({
        name: 'trigger-sampling-request-async',
        arguments: { prompt: 'Meaning of life?', maxTokens: 7 },
      }),
    );
    expect(requests).toEqual([
      {
        task: { ttl: 300_000 },
        messages: [{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request-async context: Meaning of life?' } }],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 7,
        temperature: 0.7,
      },
    ]);
    const out = text(result);
    const match = out.match(
      /^\[COMPLETED\] Async sampling completed!\n\n\*\*Progress:\*\*\nTask created: (\w+)\n([\s\S]*)\n\n\*\*Result:\*\*\n([\s\S]*)$/,
    );
    expect(match, out).not.toBeNull();
    expect(match![2]!.split('\n').at(-1)).toBe(`Poll ${match![2]!.split('\n').length}: completed - thinking`);
    expect(match![2]).toMatch(/^Poll 1: working( - thinking)?\n/);
    expect(JSON.parse(match![3]!)).toEqual({ ...SAMPLED, _meta: { 'io.modelcontextprotocol/related-task': { taskId: match![1] } } });
  });

  it('trigger-sampling-request-async reports a failed task with its message', async () => {
    const { pair, clock } = await taskClient(async (_kind, store, taskId) => {
      await store.updateTaskStatus(taskId, 'failed', 'the model is down');
    });
    await using _ = pair;
    const out = text(await clock.run(pair.client.callTool({ name: 'trigger-sampling-request-async', arguments: { prompt: 'x' } })));
    expect(out).toMatch(
      /^\[FAILED\] the model is down\n\nProgress:\nTask created: \w+\n(Poll \d+: working\n)*Poll \d+: failed - the model is down$/,
    );
  });

  it('trigger-sampling-request-async passes on a synchronous answer', async () => {
    await using pair = await connectClient(currentServer(), { capabilities: FULL_CAPABILITIES, taskStore: new InMemoryTaskStore() });
    // The SDK client insists on a task when one is asked for; a bare protocol handler answers at once.
    const setRaw = Object.getPrototypeOf(Client.prototype).setRequestHandler as Client['setRequestHandler'];
    setRaw.call(pair.client, CreateMessageRequestSchema, () => SAMPLED);
    const out = text(await pair.client.callTool({ name: 'trigger-sampling-request-async', arguments: { prompt: 'x' } }));
    expect(out).toBe(`[SYNC] Client executed synchronously:\n${JSON.stringify(SAMPLED, null, 2)}`);
  });

  it.each([
    [
      'accept',
      { action: 'accept', content: { name: 'Ada', favoriteColor: 'Blue', agreeToTerms: true } },
      [
        '[COMPLETED] User provided the requested information!',
        'User inputs:\n- Name: Ada\n- Favorite Color: Blue\n- Agreed to terms: true',
      ],
    ],
    ['decline', { action: 'decline' }, ['[DECLINED] User declined to provide the requested information.']],
    ['cancel', { action: 'cancel' }, ['[CANCELLED] User cancelled the elicitation dialog.']],
  ])('trigger-elicitation-request-async: the client asks its user in a task (%s)', async (_label, answer, head) => {
    const { pair, requests, clock } = await taskClient(
      async (_kind, store, taskId) => {
        await store.storeTaskResult(taskId, 'completed', answer);
      },
      { start: (store, taskId) => store.updateTaskStatus(taskId, 'input_required', 'waiting for the user') },
    );
    await using _ = pair;
    const result = await clock.run(pair.client.callTool({ name: 'trigger-elicitation-request-async', arguments: {} }));
    expect(requests).toEqual([
      {
        task: { ttl: 600_000 },
        message: 'Please provide inputs for the following fields (async task demo):',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { title: 'Your Name', type: 'string', description: 'Your full name' },
            favoriteColor: {
              title: 'Favorite Color',
              type: 'string',
              description: 'What is your favorite color?',
              enum: ['Red', 'Blue', 'Green', 'Yellow', 'Purple'],
            },
            agreeToTerms: { title: 'Terms Agreement', type: 'boolean', description: 'Do you agree to the terms and conditions?' },
          },
          required: ['name'],
        },
      },
    ]);
    const all = texts(result);
    expect(all.slice(0, -1)).toEqual(head);
    // Only the first poll and every tenth are recorded while the user is still being asked.
    expect(all.at(-1)).toMatch(
      /^\nProgress:\nTask created: \w+\nPoll 1: input_required - waiting for the user\n(Poll \d+0: input_required - waiting for the user\n)*Poll \d+: completed - waiting for the user\n\nRaw result: /,
    );
    expect(JSON.parse(all.at(-1)!.split('\n\nRaw result: ')[1]!)).toMatchObject(answer);
  });

  it('registers the async tools only for clients that run those requests as tasks', async () => {
    const withoutTasks = { ...FULL_CAPABILITIES, tasks: undefined };
    await using pair = await connectCurrentV1({}, { capabilities: withoutTasks });
    const names = (await pair.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('trigger-sampling-request-async');
    expect(names).not.toContain('trigger-elicitation-request-async');
    await using full = await connectCurrentV1({}, { capabilities: FULL_CAPABILITIES });
    expect((await full.client.listTools()).tools.map((t) => t.name).slice(-2)).toEqual([
      'trigger-sampling-request-async',
      'trigger-elicitation-request-async',
    ]);
  });
});
