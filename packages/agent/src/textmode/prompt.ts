/**
 * The system-prompt section that teaches a model without function calling to call tools in its
 * text: the call format with one example, the rule to stop and wait for results, the shape the
 * results come back in, and the tool list (one compact JSON object per tool, Hermes/Qwen style).
 */
import type { JsonSchema, ToolSpec } from '../types.js';
import { CALL_CLOSE, CALL_OPEN, renderCallBlock, renderResultBlock } from './format.js';

/** A placeholder of the right JSON type for an example argument. */
function placeholder(schema: unknown): unknown {
  const type = typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
  const first = Array.isArray(type) ? type[0] : type;
  switch (first) {
    case 'string':
      return 'text';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'value';
  }
}

/** Example arguments for a tool: its required properties, each with a placeholder of its type. */
function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const properties =
    typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [];
  const example: Record<string, unknown> = {};
  for (const key of required) example[key] = placeholder(properties[key]);
  return example;
}

/** A JSON line that cannot close the surrounding `<tools>` block (`</` is written `<\/`, the same JSON). */
function toolLine(tool: ToolSpec): string {
  return JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).replaceAll('</', '<\\/');
}

/**
 * The tool catalogue for the system prompt of a model called in text mode. The output depends only
 * on `tools` (same tools, same text). With no tools it says that none can be called now and how the
 * earlier calls and results in the conversation are written.
 */
export function renderToolCatalogue(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) {
    return [
      '# Tools',
      '',
      `No tools can be called now. Tool calls made earlier in this conversation appear as ${CALL_OPEN} blocks and their results as <tool_result> blocks. Do not write ${CALL_OPEN} blocks; answer with what you have.`,
    ].join('\n');
  }
  const example = tools[0]!;
  return [
    '# Tools',
    '',
    'You can call the tools listed below. To call one, write a tool call block in your reply: the tag ' +
      `${CALL_OPEN} on its own line, then one JSON object with the tool's "name" and its "arguments" (a JSON object that ` +
      `matches the tool's inputSchema), then ${CALL_CLOSE} on its own line. For example (placeholder values):`,
    '',
    renderCallBlock({ name: example.name, arguments: JSON.stringify(exampleArguments(example.inputSchema)) }),
    '',
    `You may write several ${CALL_OPEN} blocks in one reply; each block holds exactly one call and nothing but its JSON. ` +
      'After your calls, stop writing and wait: you do not know the results yet. They arrive in the next message, one ' +
      '<tool_result> block per call, in the order of your calls, with the id and the name of the tool, for example:',
    '',
    renderResultBlock({ id: 'call_1', name: example.name, text: '…the result text…' }),
    '',
    'A result block with error="true" means the call failed: read the message, then fix the call or tell the user. ' +
      `Never write <tool_result> blocks yourself and never guess a result. When you need no tool, answer without any tags.`,
    '',
    `The tools, one JSON object per line (name, description, inputSchema):`,
    '<tools>',
    ...tools.map(toolLine),
    '</tools>',
  ].join('\n');
}
