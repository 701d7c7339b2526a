import { describe, expect, it } from 'vitest';
import { createTextModeParser, renderToolCatalogue } from '../src/textmode/index.js';
import type { ToolSpec } from '../src/types.js';

const tools: ToolSpec[] = [
  {
    name: 'memory__create_entities',
    description: 'Create entities.\nSecond line with </tools> in it.',
    inputSchema: {
      type: 'object',
      properties: { entities: { type: 'array' }, note: { type: 'string' }, count: { type: ['integer', 'null'] } },
      required: ['entities', 'note', 'count'],
    },
  },
  { name: 'memory__read_graph', description: 'Read the graph.', inputSchema: { type: 'object', properties: {} } },
];

function toolLines(catalogue: string): unknown[] {
  const start = catalogue.indexOf('\n<tools>\n');
  const end = catalogue.indexOf('\n</tools>');
  expect(start).toBeGreaterThan(-1);
  expect(end).toBe(catalogue.length - '\n</tools>'.length);
  return catalogue
    .slice(start + '\n<tools>\n'.length, end)
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('renderToolCatalogue', () => {
  it('lists every tool as one compact JSON line: name, description, inputSchema', () => {
    const catalogue = renderToolCatalogue(tools);
    expect(toolLines(catalogue)).toEqual(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
    // A description cannot close the list early.
    expect(catalogue.match(/<\/tools>/g)).toHaveLength(1);
    expect(catalogue).toContain(
      '{"name":"memory__read_graph","description":"Read the graph.","inputSchema":{"type":"object","properties":{}}}',
    );
  });

  it('explains the format, the wait, and the results', () => {
    const catalogue = renderToolCatalogue(tools);
    expect(catalogue).toMatch(/<tool_call>\n\{"name": "memory__create_entities", "arguments": \{.*\}\}\n<\/tool_call>/);
    expect(catalogue).toMatch(/stop writing and wait/);
    expect(catalogue).toContain('<tool_result id="call_1" name="memory__create_entities">');
    expect(catalogue).toContain('error="true"');
    expect(catalogue).toMatch(/several <tool_call> blocks/);
  });

  it('its example is a call the parser reads, with placeholders of the right types', () => {
    const catalogue = renderToolCatalogue(tools);
    const example = catalogue.slice(catalogue.indexOf('<tool_call>\n{'), catalogue.indexOf('</tool_call>\n') + '</tool_call>'.length);
    const parser = createTextModeParser();
    expect(parser.push(example) + parser.end()).toBe('');
    expect(parser.calls).toEqual([{ id: 'call_1', name: 'memory__create_entities', arguments: '{"entities":[],"note":"text","count":1}' }]);
  });

  it('is deterministic and depends only on the tools', () => {
    expect(renderToolCatalogue(tools)).toBe(renderToolCatalogue(structuredClone(tools)));
    expect(renderToolCatalogue(tools)).not.toBe(renderToolCatalogue([tools[1]!, tools[0]!]));
    expect(renderToolCatalogue([tools[1]!])).toContain('{"name": "memory__read_graph", "arguments": {}}');
  });

  it('with no tools, says none can be called and lists nothing', () => {
    const catalogue = renderToolCatalogue([]);
    expect(catalogue).toMatch(/No tools can be called now/);
    expect(catalogue).not.toContain('<tools>');
  });
});
