import { describe, expect, it } from 'vitest';
import { type AgentEvent, createAgent, createOpenAIClient, type ToolEntry, type ToolRouter } from '../src/index.js';
import { startScriptedModel } from '../src/testing/index.js';

const echo: ToolEntry = {
  name: 'fx__echo',
  server: 'fx',
  tool: 'echo',
  description: 'Echo',
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
};
const wipe: ToolEntry = { name: 'fx__wipe', server: 'fx', tool: 'wipe', description: 'Wipe', inputSchema: { type: 'object' } };

function router(calls: string[]): ToolRouter {
  const tools = [echo, wipe];
  return {
    listTools: () => tools,
    lookup: (name) => tools.find((t) => t.name === name),
    async callTool(name) {
      calls.push(name);
      return { content: [{ type: 'text', text: `${name} ran` }] };
    },
  };
}

describe('the step loop', () => {
  it('is bounded by maxSteps: then one call without tools, and a done event last', async () => {
    await using model = await startScriptedModel({
      turns: [],
      onExhausted: 'repeat-last',
    });
    model.push({ toolCalls: [{ name: 'fx__echo', arguments: {} }] });
    const calls: string[] = [];
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 'm' }), router: router(calls), maxSteps: 2 });
    const events: AgentEvent[] = [];
    const result = await agent.run('go', { onEvent: (e) => events.push(e) });
    expect(model.requests.map((r) => (r.body.tools ?? []).length)).toEqual([2, 2, 0]);
    expect(calls).toEqual(['fx__echo', 'fx__echo']);
    expect(events.filter((e) => e.type === 'model_call')).toEqual([
      { type: 'model_call', step: 0, final: false },
      { type: 'model_call', step: 1, final: false },
      { type: 'model_call', step: 2, final: true },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', steps: 2, cancelled: false, finishReason: 'tool_calls' });
    expect(events).toContainEqual({ type: 'notice', text: 'the model asked for 1 tool call(s) after the step limit; not run' });
    expect(result.steps).toBe(2);
  });

  it('yields an approval event for each server tool call, before the call (or instead of it when denied)', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          toolCalls: [
            { name: 'fx__echo', arguments: {} },
            { name: 'fx__wipe', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
    });
    const calls: string[] = [];
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 'm' }), router: router(calls) });
    const events: AgentEvent[] = [];
    await agent.run('go', { onEvent: (e) => events.push(e) });
    const tooling = events
      .filter((e) => e.type === 'approval' || e.type === 'tool_call' || e.type === 'tool_result')
      .map((e) =>
        e.type === 'approval'
          ? `approval ${e.call.name} ${e.decision.allowed}`
          : e.type === 'tool_call'
            ? `call ${e.call.name}`
            : `result ${e.outcome.status}`,
      );
    expect(tooling).toEqual(['approval fx__echo true', 'call fx__echo', 'result ok', 'approval fx__wipe false', 'result denied']);
    expect(calls).toEqual(['fx__echo']);
    expect(events.at(-1)).toEqual({ type: 'done', steps: 1, cancelled: false, finishReason: 'stop' });
  });
});
