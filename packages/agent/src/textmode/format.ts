/**
 * The text-mode wire format in one place: the tag names, and how a call and a result are written
 * into a message. The parser, the prompt and the message conversion all use these, so the model is
 * shown exactly the shape it is asked to write. Not part of the public API (see `docs/text-mode.md`).
 */
import type { ToolCall } from '../types.js';

/** Opens a call in the model's reply. */
export const CALL_OPEN = '<tool_call>';
/** Closes a call in the model's reply. */
export const CALL_CLOSE = '</tool_call>';
/** Closes a result block; the opening tag carries attributes (`<tool_result id="…" name="…">`). */
const RESULT_CLOSE = '</tool_result>';

/**
 * `</tool_call` written inside call JSON becomes `<\/tool_call`: still the same JSON (`\/` is the
 * escaped `/`), but no longer a closing tag.
 */
function neutraliseCallClose(text: string): string {
  return text.replaceAll('</tool_call', '<\\/tool_call');
}

/** Result text is content: a closing tag in it is written `<\/tool_result` so the block cannot end early. */
function neutraliseResultClose(text: string): string {
  return text.replaceAll('</tool_result', '<\\/tool_result');
}

/** An attribute value in double quotes: `&`, `"`, `<` and `>` become entities. */
function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * The JSON line of one call: `{"name": "…", "arguments": {…}}` (the arguments compact). Arguments
 * that are not JSON are embedded as a JSON string. A call without a name is one the parser could not
 * read: its `arguments` hold the raw text the model wrote, and that text is written back as it was.
 */
function renderCallJson(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const raw = call.arguments.trim();
  if (call.name === '') return neutraliseCallClose(raw);
  const parsed = raw === '' ? { value: {} } : parseJson(raw);
  const args = parsed ? JSON.stringify(parsed.value) : JSON.stringify(call.arguments);
  return neutraliseCallClose(`{"name": ${JSON.stringify(call.name)}, "arguments": ${args}}`);
}

/** A whole call block: the tags on their own lines around the JSON line. */
export function renderCallBlock(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return `${CALL_OPEN}\n${renderCallJson(call)}\n${CALL_CLOSE}`;
}

/** A whole result block: `<tool_result id="…" name="…"[ error="true"]>`, the text, the closing tag. */
export function renderResultBlock(result: { id: string; name: string; text: string; isError?: boolean }): string {
  const error = result.isError ? ' error="true"' : '';
  return `<tool_result id="${escapeAttribute(result.id)}" name="${escapeAttribute(result.name)}"${error}>\n${neutraliseResultClose(result.text)}\n${RESULT_CLOSE}`;
}
