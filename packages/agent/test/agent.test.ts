import { createMemoryServer, createMemoryStore } from '@mcpkit/server-memory';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type AgentHost,
  createAgent,
  createOpenAIClient,
  createRegistry,
  type Message,
  type ServerConfig,
} from '../src/index.js';
import { type ScriptedTurn, startScriptedModel } from '../src/testing/index.js';

function memoryConfig(name: string): ServerConfig {
  return { kind: 'stdio', name, command: 'unused', args: [], env: {}, approval: { tools: {} } };
}

/** Memory servers in process (one store each), under the given names. */
async function memoryRegistry(names: string[] = ['memory'], host?: AgentHost) {
  return createRegistry(names.map(memoryConfig), {
    host,
    transportFactory: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void createMemoryServer({ store: createMemoryStore() }).connect(server);
      return client;
    },
  });
}

const ENTITY = { entities: [{ name: 'Ada', entityType: 'person', observations: ['Maintains the scheduler'] }] };

/** The same conversation, once with native tool calls and once with calls written in the text. */
const nativeTurns: ScriptedTurn[] = [
  { text: 'Saving. ', toolCalls: [{ id: 'call_1', name: 'memory__create_entities', arguments: ENTITY, chunks: 4 }] },
  { text: ['Ada ', 'is saved.'] },
];
const textTurns: ScriptedTurn[] = [
  {
    text: ['Saving. <tool', '_call>\n{"name": "memory__create_entities", "argu', `ments": ${JSON.stringify(ENTITY)}}\n</tool_`, 'call>'],
  },
  { text: ['Ada ', 'is saved.'] },
];

function comparable(messages: readonly Message[]) {
  return messages.map((m) => ('content' in m ? { ...m, content: m.content.trim() } : m));
}

describe('the tool loop', () => {
  it('native and text modes give the same transcript, and call markup never reaches the user', async () => {
    const transcripts: Message[][] = [];
    for (const [mode, turns] of [
      ['native', nativeTurns],
      ['text', textTurns],
    ] as const) {
      await using model = await startScriptedModel({ turns });
      await using registry = await memoryRegistry();
      const llm = createOpenAIClient({ baseUrl: model.baseUrl, model: 'scripted' });
      const agent = createAgent({ llm, router: registry, mode, approval: { allowAll: true } });
      let shown = '';
      const result = await agent.run('Remember Ada.', {
        onEvent: (e) => {
          if (e.type === 'text') shown += e.text;
        },
      });
      expect(shown).not.toContain('<');
      expect(shown).not.toContain('tool_call');
      expect(shown.replace(/\s+/g, ' ')).toBe('Saving. Ada is saved.');
      expect(result.text).toBe('Ada is saved.');
      expect(result.outcomes.map((o) => o.status)).toEqual(['ok']);
      transcripts.push([...agent.session.getMessages()]);
      // The second request carries the result back to the model.
      const second = JSON.stringify(model.requests[1]?.body);
      expect(second).toContain('Maintains the scheduler');
      if (mode === 'native') {
        expect(model.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain(
          'memory__create_entities',
        );
      } else {
        expect(model.requests[0]?.body.tools).toBeUndefined();
        expect(JSON.stringify(model.requests[0]?.body.messages[0])).toContain('memory__create_entities');
        expect(second).toContain('<tool_result');
      }
    }
    expect(comparable(transcripts[1] ?? [])).toEqual(comparable(transcripts[0] ?? []));
    const [user, assistant, tool, answer] = transcripts[0] ?? [];
    expect(user).toEqual({ role: 'user', content: 'Remember Ada.' });
    expect(assistant).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_1', name: 'memory__create_entities' }] });
    expect(tool).toMatchObject({ role: 'tool', toolCallId: 'call_1', name: 'memory__create_entities' });
    expect(answer).toMatchObject({ role: 'assistant', content: 'Ada is saved.' });
  });

  it('routes two servers with the same tool names to the right one', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'a__create_entities', arguments: ENTITY }] },
        {
          toolCalls: [
            { name: 'b__read_graph', arguments: {} },
            { name: 'a__read_graph', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    });
    await using registry = await memoryRegistry(['a', 'b']);
    const agent = createAgent({
      llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }),
      router: registry,
      approval: { allowAll: true },
    });
    const result = await agent.run('go');
    const [created, readB, readA] = result.outcomes;
    expect(created?.tool?.server).toBe('a');
    expect(readB?.tool?.server).toBe('b');
    expect(readB?.text).not.toContain('Ada');
    expect(readA?.text).toContain('Ada');
  });

  it('stops calling tools after maxSteps rounds and still answers, with the tools withheld', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'memory__read_graph', arguments: {} }] },
        { toolCalls: [{ name: 'memory__read_graph', arguments: {} }] },
        { text: 'Here is what I found.', toolCalls: [{ name: 'memory__read_graph', arguments: {} }] },
      ],
    });
    await using registry = await memoryRegistry();
    const events: AgentEvent[] = [];
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }), router: registry, maxSteps: 2 });
    const result = await agent.run('loop', { onEvent: (e) => events.push(e) });
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2]?.body.tools).toBeUndefined();
    expect(JSON.stringify(model.requests[2]?.body.messages.at(-1))).toContain('tool-call limit of 2 rounds');
    expect(result.text).toBe('Here is what I found.');
    expect(result.outcomes).toHaveLength(2);
    expect(events.some((e) => e.type === 'notice' && e.text.includes('after the step limit'))).toBe(true);
    // The kept history has no tool call without its result.
    const last = agent.session.getMessages().at(-1);
    expect(last).toEqual({ role: 'assistant', content: 'Here is what I found.' });
  });

  it('denies a writing tool when nobody can be asked, and tells the model', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'memory__create_entities', arguments: ENTITY },
            { name: 'memory__read_graph', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
    });
    await using registry = await memoryRegistry();
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }), router: registry });
    const result = await agent.run('write');
    expect(result.outcomes.map((o) => o.status)).toEqual(['denied', 'ok']);
    expect(result.outcomes[0]?.text).toMatch(/needs the user's approval and there is no terminal to ask/);
    // read_graph is read-only, so it ran, and the denied write changed nothing.
    expect(result.outcomes[1]?.text).not.toContain('Ada');
    expect(JSON.stringify(model.requests[1]?.body.messages)).toContain('not run');
  });

  it('asks the host, honours "always", and a config deny beats --yes', async () => {
    const asked: string[] = [];
    const host: AgentHost = {
      approveToolCall: async ({ tool }) => {
        asked.push(tool.tool);
        return 'always';
      },
    };
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'memory__create_entities', arguments: ENTITY }] },
        { toolCalls: [{ name: 'memory__create_entities', arguments: { entities: [{ name: 'B', entityType: 't', observations: [] }] } }] },
        { toolCalls: [{ name: 'memory__delete_entities', arguments: { entityNames: ['B'] } }] },
        { text: 'ok' },
      ],
    });
    await using registry = await memoryRegistry(['memory'], host);
    const agent = createAgent({
      llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }),
      router: registry,
      host,
      approval: { allowAll: false, policies: new Map([['memory', { tools: { delete_entities: 'deny' } }]]) },
    });
    const result = await agent.run('go');
    expect(asked).toEqual(['create_entities']);
    expect(result.outcomes.map((o) => o.status)).toEqual(['ok', 'ok', 'denied']);
    expect(result.outcomes[2]?.text).toContain('configuration denies memory › delete_entities');
  });

  it('sends malformed and unknown calls back to the model as errors, never to the user', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'x1', name: 'memory__read_graph', arguments: '{"oops"' },
            { id: 'x2', name: 'nope__tool', arguments: {} },
          ],
        },
        { text: 'Sorry.' },
      ],
    });
    await using registry = await memoryRegistry();
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }), router: registry });
    let shown = '';
    const result = await agent.run('go', {
      onEvent: (e) => {
        if (e.type === 'text') shown += e.text;
      },
    });
    expect(shown).toBe('Sorry.');
    expect(result.outcomes.map((o) => o.status)).toEqual(['invalid', 'unknown_tool']);
    expect(result.outcomes[0]?.text).toMatch(/not valid JSON/);
    expect(result.outcomes[1]?.text).toMatch(/unknown tool "nope__tool".*memory__read_graph/);
    const toolMessages = ((model.requests[1]?.body.messages ?? []) as { role: string; tool_call_id?: string }[]).filter(
      (m) => m.role === 'tool',
    );
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(['x1', 'x2']);
  });

  it('a malformed text-mode call goes back to the model as an error and is not shown', async () => {
    await using model = await startScriptedModel({
      turns: [{ text: ['Let me look. <tool_call>{"name": "memory__read_graph", "arguments": {</tool_call>'] }, { text: 'Fixed.' }],
    });
    await using registry = await memoryRegistry();
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }), router: registry, mode: 'text' });
    let shown = '';
    const result = await agent.run('go', {
      onEvent: (e) => {
        if (e.type === 'text') shown += e.text;
      },
    });
    expect(shown).not.toContain('tool_call');
    expect(shown).not.toContain('{');
    expect(result.outcomes.map((o) => o.status)).toEqual(['invalid']);
    expect(JSON.stringify(model.requests[1]?.body.messages)).toContain('error=\\"true\\"');
  });

  it('cuts a result over the cap and says so', async () => {
    const big = { entities: [{ name: 'Big', entityType: 'blob', observations: ['x'.repeat(5000)] }] };
    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: 'memory__create_entities', arguments: big }] }, { text: 'ok' }],
    });
    await using registry = await memoryRegistry();
    const agent = createAgent({
      llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }),
      router: registry,
      maxResultChars: 1000,
      approval: { allowAll: true },
    });
    const result = await agent.run('go');
    expect(result.outcomes[0]?.text.length).toBeLessThan(1100);
    expect(result.outcomes[0]?.text).toMatch(/\[result cut: \d+ characters, the first 1000 shown\]$/);
  });

  it('a provider failure reaches the caller as MODEL_ERROR', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 500, message: 'boom' }, { status: 500 }, { status: 500 }] });
    await using registry = await memoryRegistry();
    const agent = createAgent({
      llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's', retryBaseDelayMs: 1 }),
      router: registry,
    });
    await expect(agent.run('go')).rejects.toMatchObject({ kind: 'MODEL_ERROR' });
  });

  it('cancelCurrent stops a hanging model call and ends the run', async () => {
    await using model = await startScriptedModel({ turns: [{ text: ['partial '], hang: true } as ScriptedTurn] });
    await using registry = await memoryRegistry();
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 's' }), router: registry });
    const run = agent.send('go');
    const events: AgentEvent[] = [];
    for await (const event of run) {
      events.push(event);
      // Cancelled once the model call is under way (its text arrived; the reply then hangs forever).
      if (event.type === 'text') run.cancelCurrent();
    }
    expect(events).toContainEqual({ type: 'text', text: 'partial ' });
    expect(events.some((e) => e.type === 'cancelled')).toBe(true);
    expect(model.requests).toHaveLength(1);
  });
});
