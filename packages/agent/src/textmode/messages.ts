/**
 * A conversation as a model without function calling receives it: the tool catalogue in the system
 * message, the assistant's earlier calls written back as `<tool_call>` blocks in its text, and the
 * results as `<tool_result>` blocks in a user message. Only `system`, `user` and `assistant` messages
 * come out, and none of them carries `toolCalls`.
 */
import type { Message, ToolSpec } from '../types.js';
import { renderCallBlock, renderResultBlock } from './format.js';
import { renderToolCatalogue } from './prompt.js';

type ToolMessage = Extract<Message, { role: 'tool' }>;

function hasToolTraffic(messages: readonly Message[]): boolean {
  return messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0));
}

/** The assistant's text, then its calls, one block each, as the parser reads them back. */
function assistantContent(content: string, calls: NonNullable<Extract<Message, { role: 'assistant' }>['toolCalls']>): string {
  const blocks = calls.map(renderCallBlock).join('\n');
  if (content === '') return blocks;
  return `${content}${content.endsWith('\n') ? '' : '\n'}${blocks}`;
}

/**
 * Convert `messages` for a model called in text mode, given the tools offered this round:
 * - the catalogue (`renderToolCatalogue(tools)`) is appended to the first system message after a
 *   blank line, or becomes a system message at the start when there is none. With no tools it is
 *   added only when the conversation has earlier calls or results (so the model can read them);
 * - an assistant message with `toolCalls` keeps its text and gets one `<tool_call>` block per call
 *   after it (on a new line, blocks separated by a newline);
 * - a run of consecutive `tool` messages becomes ONE user message of `<tool_result>` blocks
 *   (separated by a blank line; `isError` adds `error="true"`). A user message right after the run
 *   is merged into it (after a blank line), so user and assistant turns still alternate.
 * The input is not modified.
 */
export function toTextModeMessages(messages: readonly Message[], tools: readonly ToolSpec[]): Message[] {
  const out: Message[] = [];
  let results: ToolMessage[] = [];
  const flush = (): string | undefined => {
    if (results.length === 0) return undefined;
    const text = results
      .map((m) => renderResultBlock({ id: m.toolCallId, name: m.name, text: m.content, isError: m.isError }))
      .join('\n\n');
    results = [];
    return text;
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push(message);
      continue;
    }
    const pending = flush();
    if (pending !== undefined) {
      if (message.role === 'user') {
        out.push({ role: 'user', content: `${pending}\n\n${message.content}` });
        continue;
      }
      out.push({ role: 'user', content: pending });
    }
    if (message.role === 'assistant') {
      const calls = message.toolCalls ?? [];
      out.push({ role: 'assistant', content: calls.length > 0 ? assistantContent(message.content, calls) : message.content });
    } else out.push({ role: message.role, content: message.content });
  }
  const last = flush();
  if (last !== undefined) out.push({ role: 'user', content: last });

  if (tools.length === 0 && !hasToolTraffic(messages)) return out;
  const catalogue = renderToolCatalogue(tools);
  const system = out.findIndex((m) => m.role === 'system');
  if (system === -1) out.unshift({ role: 'system', content: catalogue });
  else {
    const content = out[system]!.content;
    out[system] = { role: 'system', content: content === '' ? catalogue : `${content}\n\n${catalogue}` };
  }
  return out;
}
