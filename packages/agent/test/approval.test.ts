import { describe, expect, it } from 'vitest';
import { createApprovalGate, type ToolEntry } from '../src/index.js';

const tool = (annotations: ToolEntry['annotations'], server = 'fs'): ToolEntry => ({
  name: `${server}__t`,
  server,
  tool: 't',
  description: '',
  inputSchema: { type: 'object' },
  annotations,
});
const READS = { readOnlyHint: true };

describe('approval gate: tools that say they only read', () => {
  it('are allowed without asking by default (unless they also say destructive)', () => {
    const gate = createApprovalGate({}, undefined);
    expect(gate.mode(tool(READS))).toBe('allow');
    expect(gate.mode(tool({ readOnlyHint: true, destructiveHint: true }))).toBe('ask');
    expect(gate.mode(tool({}))).toBe('ask');
  });

  it('are asked like any other when the agent turns it off (--no-auto-approve-read-only), whatever a server says', async () => {
    const policies = new Map([['fs', { tools: {}, autoAllowReadOnly: true }]]);
    const gate = createApprovalGate({ autoAllowReadOnly: false, policies }, undefined);
    expect(gate.mode(tool(READS))).toBe('ask');
    expect(await gate.decide(tool(READS), {})).toMatchObject({ allowed: false, reason: expect.stringContaining('no terminal to ask') });
  });

  it('are asked for one server whose config says "autoApproveReadOnly": false, and allowed for the others', () => {
    const gate = createApprovalGate({ policies: new Map([['fs', { tools: {}, autoAllowReadOnly: false }]]) }, undefined);
    expect(gate.mode(tool(READS, 'fs'))).toBe('ask');
    expect(gate.mode(tool(READS, 'other'))).toBe('allow');
  });
});
