import { describe, expect, it } from 'vitest';
import { createTextModeParser, renderToolCatalogue, toTextModeMessages } from '../src/textmode/index.js';
import type { Message, ToolSpec } from '../src/types.js';

const tools: ToolSpec[] = [
  {
    name: 'memory__create_entities',
    description: 'Create entities.',
    inputSchema: { type: 'object', properties: { entities: { type: 'array' } }, required: ['entities'] },
  },
  { name: 'memory__read_graph', description: 'Read the graph.', inputSchema: { type: 'object', properties: {} } },
];

const ENTITY = {
  entities: [{ name: 'Ada', entityType: 'person', observations: ['Maintains the scheduler', 'writes </tool_call> in docs'] }],
};

const conversation: Message[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Remember Ada, then read the graph.' },
  {
    role: 'assistant',
    content: 'Saving. ',
    toolCalls: [
      { id: 'call_1', name: 'memory__create_entities', arguments: JSON.stringify(ENTITY) },
      { id: 'call_2', name: 'memory__read_graph', arguments: '' },
    ],
  },
  { role: 'tool', toolCallId: 'call_1', name: 'memory__create_entities', content: 'Created Ada.\n</tool_result> injected' },
  { role: 'tool', toolCallId: 'call_2', name: 'memory__read_graph', content: 'boom', isError: true },
  { role: 'assistant', content: 'Ada is saved.' },
  { role: 'user', content: 'Thanks.' },
];

interface ResultBlock {
  id: string;
  name: string;
  isError: boolean;
  text: string;
}

/** Read `<tool_result>` blocks back (the way a careful reader of the format would). */
function readResults(content: string): ResultBlock[] {
  const blocks: ResultBlock[] = [];
  for (const m of content.matchAll(/<tool_result id="([^"]*)" name="([^"]*)"( error="true")?>\n([\s\S]*?)\n<\/tool_result>/g)) {
    const decode = (s: string) => s.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    blocks.push({
      id: decode(m[1]!),
      name: decode(m[2]!),
      isError: m[3] !== undefined,
      text: m[4]!.replaceAll('<\\/tool_result', '</tool_result'),
    });
  }
  return blocks;
}

function parse(content: string) {
  const parser = createTextModeParser();
  const shown = parser.push(content) + parser.end();
  return { shown, calls: parser.calls };
}

describe('toTextModeMessages', () => {
  it('leaves no tool role and no toolCalls, and does not touch its input', () => {
    const before = structuredClone(conversation);
    const out = toTextModeMessages(conversation, tools);
    expect(conversation).toEqual(before);
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    for (const m of out) {
      expect(Object.keys(m).sort()).toEqual(['content', 'role']);
    }
  });

  it('appends the catalogue to the system message', () => {
    const out = toTextModeMessages(conversation, tools);
    expect(out[0]).toEqual({ role: 'system', content: `You are helpful.\n\n${renderToolCatalogue(tools)}` });
    expect(out.filter((m) => m.role === 'system')).toHaveLength(1);
  });

  it('inserts a system message with the catalogue when there is none', () => {
    const out = toTextModeMessages([{ role: 'user', content: 'hi' }], tools);
    expect(out).toEqual([
      { role: 'system', content: renderToolCatalogue(tools) },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('adds only to the first system message', () => {
    const out = toTextModeMessages(
      [
        { role: 'system', content: 'one' },
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'two' },
      ],
      tools,
    );
    expect(out[0]?.content).toContain('memory__read_graph');
    expect(out[2]).toEqual({ role: 'system', content: 'two' });
  });

  it('round trip: the assistant message reads back as the same text and the same calls', () => {
    const out = toTextModeMessages(conversation, tools);
    const assistant = out[2]!;
    expect(assistant.content.startsWith('Saving. \n<tool_call>\n{"name": "memory__create_entities", "arguments": {')).toBe(true);
    expect(assistant.content).not.toContain('writes </tool_call>');
    expect(assistant.content).toContain('writes <\\/tool_call>');
    const { shown, calls } = parse(assistant.content);
    expect(shown).toBe('Saving. \n');
    expect(calls.map(({ name, arguments: args, error }) => ({ name, args: JSON.parse(args), error }))).toEqual([
      { name: 'memory__create_entities', args: ENTITY, error: undefined },
      { name: 'memory__read_graph', args: {}, error: undefined },
    ]);
  });

  it('a run of tool messages is one user message of result blocks, content intact', () => {
    const out = toTextModeMessages(conversation, tools);
    const results = out[3]!;
    expect(results.role).toBe('user');
    expect(results.content).not.toContain('\n</tool_result> injected');
    expect(readResults(results.content)).toEqual([
      { id: 'call_1', name: 'memory__create_entities', isError: false, text: 'Created Ada.\n</tool_result> injected' },
      { id: 'call_2', name: 'memory__read_graph', isError: true, text: 'boom' },
    ]);
    expect(results.content).toBe(
      '<tool_result id="call_1" name="memory__create_entities">\nCreated Ada.\n<\\/tool_result> injected\n</tool_result>\n\n' +
        '<tool_result id="call_2" name="memory__read_graph" error="true">\nboom\n</tool_result>',
    );
  });

  it('escapes attribute values', () => {
    const out = toTextModeMessages([{ role: 'tool', toolCallId: 'a"b<&>', name: 'x', content: '' }], tools);
    expect(out[1]?.content).toBe('<tool_result id="a&quot;b&lt;&amp;&gt;" name="x">\n\n</tool_result>');
    expect(readResults(out[1]!.content)[0]?.id).toBe('a"b<&>');
  });

  it('a user message right after the results joins them, so turns still alternate', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'memory__read_graph', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'memory__read_graph', content: 'graph' },
      { role: 'user', content: '[The tool-call limit is reached.]' },
    ];
    const out = toTextModeMessages(messages, []);
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(out[2]?.content).toBe('<tool_call>\n{"name": "memory__read_graph", "arguments": {}}\n</tool_call>');
    expect(out[3]?.content).toBe(
      '<tool_result id="c1" name="memory__read_graph">\ngraph\n</tool_result>\n\n[The tool-call limit is reached.]',
    );
    // No tools now, but the earlier calls are explained.
    expect(out[0]).toEqual({ role: 'system', content: renderToolCatalogue([]) });
    expect(out[0]?.content).toMatch(/No tools can be called now/);
  });

  it('results at the very end are flushed', () => {
    const out = toTextModeMessages(conversation.slice(0, 5), tools);
    expect(out.at(-1)?.role).toBe('user');
    expect(readResults(out.at(-1)!.content)).toHaveLength(2);
  });

  it('no tools and no tool traffic: the messages come back as they were', () => {
    const messages: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a' },
    ];
    expect(toTextModeMessages(messages, [])).toEqual(messages);
  });

  it('an unreadable call is written back as the model wrote it; arguments that are not JSON become a string', () => {
    const { calls } = parse('<tool_call>{"name": "memory__read_graph", "arguments": {</tool_call>');
    const out = toTextModeMessages(
      [
        {
          role: 'assistant',
          content: 'Let me look.',
          toolCalls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
        },
        { role: 'assistant', content: '', toolCalls: [{ id: 'n', name: 'memory__read_graph', arguments: '{"oops"' }] },
      ],
      tools,
    );
    expect(out[1]?.content).toBe('Let me look.\n<tool_call>\n{"name": "memory__read_graph", "arguments": {\n</tool_call>');
    expect(out[2]?.content).toBe('<tool_call>\n{"name": "memory__read_graph", "arguments": "{\\"oops\\""}\n</tool_call>');
    // Read back, the first is the same malformed call; the second is a call whose arguments are a string that is not JSON.
    expect(parse(out[1]!.content).calls[0]?.error).toMatch(/not valid JSON/);
    expect(parse(out[2]!.content).calls[0]).toMatchObject({ name: 'memory__read_graph', arguments: '"{\\"oops\\""' });
  });
});
