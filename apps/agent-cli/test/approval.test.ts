import { describe, expect, it } from 'vitest';
import { askApproval, askSamplingApproval, describeToolEffects, type ToolApprovalRequest } from '../src/terminal/approval.js';
import { scripted, UNSAFE } from './scriptedPrompter.js';

const createEntities: ToolApprovalRequest = {
  tool: {
    name: 'memory__create_entities',
    server: 'memory',
    tool: 'create_entities',
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  args: { entities: [{ name: 'Ada', entityType: 'person' }] },
};

describe('askApproval', () => {
  it.each([
    ['y', 'allow'],
    ['yes', 'allow'],
    [' Y ', 'allow'],
    ['n', 'deny'],
    ['no', 'deny'],
    ['', 'deny'],
    ['a', 'always'],
    ['Always', 'always'],
  ] as const)('answer %j → %s', async (answer, expected) => {
    expect(await askApproval(scripted([answer]).prompter, createEntities)).toBe(expected);
  });

  it('denies at end of input', async () => {
    expect(await askApproval(scripted([]).prompter, createEntities)).toBe('deny');
  });

  it('asks again after an unclear answer', async () => {
    const s = scripted(['maybe', 'a']);
    expect(await askApproval(s.prompter, createEntities)).toBe('always');
    expect(s.prompts).toHaveLength(2);
    expect(s.output()).toContain('answer y, n or a');
  });

  it('shows the server, the tool, what it does and the arguments', async () => {
    const s = scripted(['y']);
    await askApproval(s.prompter, createEntities);
    expect(s.output()).toBe(
      'Allow memory › create_entities (writes) with {"entities":[{"name":"Ada","entityType":"person"}]}?\n' +
        '[y]es / [n]o / [a]lways for this tool: ',
    );
  });

  it('cuts long arguments and sanitises them', async () => {
    const s = scripted(['n']);
    await askApproval(s.prompter, {
      tool: { name: 'x__t', server: 'x\u001b[31m', tool: 't\r' },
      args: { text: `${'z'.repeat(2000)}`, evil: '\u001b]0;title\u0007\u202e\u0085' },
    });
    const line = s.output().split('\n')[0] ?? '';
    expect(line.length).toBeLessThan(560);
    expect(line).toContain('…');
    // Cut, not collapsed: the user sees as much of what they approve as fits.
    expect(line.startsWith('Allow x › t with {"text":"zzzz')).toBe(true);
    expect(s.output()).not.toMatch(UNSAFE);
  });

  it('makes invisible characters in arguments visible', async () => {
    const s = scripted(['n']);
    await askApproval(s.prompter, { tool: { name: 'x__t', server: 'x', tool: 't' }, args: { path: 'a\u202eb' } });
    expect(s.output()).toContain('{"path":"a\\u202eb"}');
  });

  it('says when there are no arguments', async () => {
    const s = scripted(['n']);
    await askApproval(s.prompter, { tool: { name: 'x__t', server: 'x', tool: 't', annotations: { readOnlyHint: true } }, args: {} });
    expect(s.output()).toContain('Allow x › t (read-only) (no arguments)?');
  });
});

describe('describeToolEffects', () => {
  it('reads the annotations', () => {
    expect(describeToolEffects(undefined)).toEqual([]);
    expect(describeToolEffects({ readOnlyHint: true })).toEqual(['read-only']);
    expect(describeToolEffects({ destructiveHint: true })).toEqual(['destructive']);
    expect(describeToolEffects({ readOnlyHint: false, destructiveHint: false, openWorldHint: true })).toEqual(['writes', 'open world']);
    expect(describeToolEffects({ readOnlyHint: false })).toEqual(['may be destructive']);
  });
});

describe('askSamplingApproval', () => {
  const request = {
    server: 'everything',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Summarise\nthis \u001b[2Jplease' },
    ],
    systemPrompt: 'You are terse.',
    maxTokens: 100,
  };

  it('shows the server, the cap and the messages, and allows only on yes', async () => {
    const s = scripted(['y']);
    expect(await askSamplingApproval(s.prompter, request)).toBe(true);
    expect(s.output()).toBe(
      'everything wants to use the model (sampling, at most 100 tokens):\n' +
        '  system: You are terse.\n' +
        '  user: Summarise this please\n' +
        'Send this to the model? [y/N]: ',
    );
  });

  it.each([['n'], [''], [':cancel'], [null]])('answer %j → false', async (answer) => {
    expect(await askSamplingApproval(scripted([answer]).prompter, request)).toBe(false);
  });

  it('asks again after an unclear answer', async () => {
    const s = scripted(['perhaps', 'yes']);
    expect(await askSamplingApproval(s.prompter, request)).toBe(true);
    expect(s.output()).toContain('answer y or n');
  });

  it('shows the system prompt when the messages do not carry it, and only the last messages', async () => {
    const s = scripted(['n']);
    const many = Array.from({ length: 9 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));
    await askSamplingApproval(s.prompter, { server: 's', messages: many, systemPrompt: 'sys' });
    const out = s.output();
    expect(out).toBe(
      's wants to use the model (sampling, no token cap given):\n' +
        '  system: sys\n' +
        '  … 3 earlier message(s) not shown\n' +
        '  assistant: m3\n  user: m4\n  assistant: m5\n  user: m6\n  assistant: m7\n  user: m8\n' +
        'Send this to the model? [y/N]: ',
    );
  });
});
