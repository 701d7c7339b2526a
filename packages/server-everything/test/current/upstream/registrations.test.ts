/** The reference's own suite, ported (see ./helpers.ts): upstream `registrations.test.ts`. */
import { describe, expect, it } from 'vitest';
import { connectCurrent, UNGATED_TOOLS } from '../helpers.js';
import { toolNames } from './helpers.js';

describe('registrations.test.ts (6)', () => {
  it('6.2.1 registers exactly the 12 unconditional tools (plus the task tool every client gets)', async () => {
    const names = await toolNames({});
    expect(names.filter((n) => n !== 'simulate-research-query')).toEqual(UNGATED_TOOLS);
    expect(names).toHaveLength(13);
  });
  it('6.2.2 with roots, URL elicitation and sampling: the 4 gated tools and the task tool, no async tools', async () => {
    const names = await toolNames({ roots: {}, elicitation: { url: {} }, sampling: {} });
    expect(names.slice(12)).toEqual([
      'get-roots-list',
      'trigger-elicitation-request',
      'trigger-url-elicitation',
      'trigger-sampling-request',
      'simulate-research-query',
    ]);
  });
  it('6.2.3 without client capabilities no gated tool is registered', async () => {
    const names = await toolNames({});
    for (const gated of ['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request']) {
      expect(names).not.toContain(gated);
    }
  });
  it('6.2.4 registers the 4 prompts', async () => {
    await using pair = await connectCurrent();
    expect((await pair.client.listPrompts()).prompts.map((p) => p.name)).toEqual([
      'simple-prompt',
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
    ]);
  });
  it('6.2.5 registers the Dynamic Text and Dynamic Blob templates', async () => {
    await using pair = await connectCurrent();
    const names = (await pair.client.listResourceTemplates()).resourceTemplates.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Dynamic Text Resource', 'Dynamic Blob Resource']));
  });
  it('6.2.6 sends non-empty instructions', async () => {
    await using pair = await connectCurrent();
    expect(pair.client.getInstructions()).toMatch(/Everything Server/);
  });
});
