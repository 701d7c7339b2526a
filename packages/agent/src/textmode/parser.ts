/**
 * The text-mode stream parser: it watches a model's streamed reply for `<tool_call>…</tool_call>`
 * blocks, takes them out of the visible text and turns them into tool calls.
 *
 * Latency: text that cannot be the start of a tag is returned by the same `push` that received it.
 * Only a `<` that may begin `<tool_call>` or `</tool_call>` (`<`, `<t`, `</tool_ca`, …) is held,
 * and only until the next character decides it. Each character is looked at a bounded number of
 * times (`indexOf` jumps to the next `<`; a held prefix is at most 12 characters), so a reply costs
 * O(n) however it is chunked.
 *
 * Decisions (documented in `docs/text-mode.md`):
 * - Whitespace right after a removed block is dropped (up to the next visible character or the end
 *   of the reply); whitespace before a block is shown, since holding it would delay plain text.
 * - A stray `</tool_call>` outside a call is markup, not text: it is removed (and the whitespace after
 *   it, as after a block) and is not a call.
 * - The first `</tool_call>` ends a call, wherever it is (write `<\/tool_call>` inside JSON strings).
 * - At the end of the reply, a call still open (or an opening tag cut off, `<t`…`<tool_call`) becomes
 *   a call with an error; a cut-off closing tag (`</t`…) is dropped; a lone `<` or `</` is text.
 */
import { errorMessage } from '../errors.js';
import type { ToolCall } from '../types.js';
import { CALL_CLOSE, CALL_OPEN } from './format.js';

/** A call found in the reply. `error` is set when it could not be read; it tells the model what is wrong. */
export interface ParsedCall extends ToolCall {
  /**
   * Why the call cannot be run, written for the model (bad JSON at a position, no `"name"`, arguments
   * not an object, unterminated block). When set, `name` may be `''` and `arguments` then holds the
   * raw text the model wrote between the tags.
   */
  error?: string;
}

/** Options of `createTextModeParser`. */
export interface TextModeParserOptions {
  /** Ids for the calls, in order of appearance. Default: `call_1`, `call_2`, … (counted per parser). */
  nextId?: () => string;
}

/** One reply's parser: feed it the stream's text deltas, then `end()` it. */
export interface TextModeParser {
  /** Feed a stream delta; returns the text that is safe to show now (possibly `''`). */
  push(text: string): string;
  /** The reply ended: returns the rest of the safe text; an unterminated call becomes a call with an error. */
  end(): string;
  /** The calls found so far, in order of appearance, complete or malformed. */
  readonly calls: readonly ParsedCall[];
}

const UNTERMINATED = `unterminated ${CALL_OPEN} at the end of the reply: each call must end with ${CALL_CLOSE}`;
const SHAPE = `write exactly one JSON object {"name": "<tool name>", "arguments": {…}} between ${CALL_OPEN} and ${CALL_CLOSE}`;

function isWhitespace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r' || char === '\f' || char === '\v';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Trim, and take off a Markdown code fence (```` ```json ```` … ```` ``` ````) around the JSON. */
function unfence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('```')) return trimmed;
  let inner = trimmed.slice(3);
  let start = 0;
  while (start < inner.length && /[\w.+-]/.test(inner[start] ?? '')) start++;
  inner = inner.slice(start);
  if (inner.endsWith('```')) inner = inner.slice(0, -3);
  return inner.trim();
}

/** Read the text between the tags: the name and the compact JSON arguments, or why it cannot be read. */
function readCall(raw: string): Omit<ParsedCall, 'id'> {
  const text = unfence(raw);
  if (text === '') return { name: '', arguments: text, error: `the ${CALL_OPEN} block is empty; ${SHAPE}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const nested = text.includes(CALL_OPEN) ? `; a new ${CALL_OPEN} started before this one was closed with ${CALL_CLOSE}` : '';
    return { name: '', arguments: text, error: `the text inside ${CALL_OPEN} is not valid JSON (${errorMessage(error)})${nested}` };
  }
  if (!isObject(value)) return { name: '', arguments: text, error: `the text inside ${CALL_OPEN} is ${describe(value)}; ${SHAPE}` };
  const rawName = value.name;
  if (rawName === undefined) return { name: '', arguments: text, error: `the call has no "name"; ${SHAPE}` };
  if (typeof rawName !== 'string' || rawName.trim() === '') {
    return { name: '', arguments: text, error: `"name" must be the tool's name as a non-empty string, not ${JSON.stringify(rawName)}` };
  }
  const name = rawName.trim();
  const given = value.arguments !== undefined ? value.arguments : value.parameters;
  let args = given;
  if (typeof given === 'string') {
    if (given.trim() === '') args = {};
    else {
      try {
        args = JSON.parse(given);
      } catch (error) {
        return {
          name,
          arguments: JSON.stringify(given),
          error: `"arguments" of ${name} is a string that is not valid JSON (${errorMessage(error)}); give a JSON object`,
        };
      }
    }
  }
  if (args === undefined || args === null) args = {};
  if (!isObject(args))
    return { name, arguments: JSON.stringify(given), error: `"arguments" of ${name} must be a JSON object, not ${describe(args)}` };
  return { name, arguments: JSON.stringify(args) };
}

/**
 * A parser for one reply in text mode. See the module comment and `docs/text-mode.md` for the rules;
 * in short, `push` returns every character that cannot belong to a tag at once, the concatenated
 * output of `push` and `end` is the reply without its call blocks, and `calls` lists the blocks.
 */
export function createTextModeParser(options: TextModeParserOptions = {}): TextModeParser {
  let count = 0;
  const nextId = options.nextId ?? (() => `call_${++count}`);
  const calls: ParsedCall[] = [];
  /** Inside `<tool_call>`, collecting the body. */
  let inCall = false;
  /** A possible tag not decided yet: a prefix of `<tool_call>`/`</tool_call>` (outside a call) or of `</tool_call>` (inside). */
  let held = '';
  let body: string[] = [];
  /** Drop whitespace until the next visible character (just after a removed block or stray closing tag). */
  let skipSpace = false;
  let ended = false;

  const addCall = (call: Omit<ParsedCall, 'id'>) => {
    calls.push({ id: nextId(), ...call });
  };

  const closeCall = () => {
    addCall(readCall(body.join('')));
    body = [];
    inCall = false;
    skipSpace = true;
  };

  return {
    calls,
    push(text: string): string {
      if (ended) throw new Error('text-mode parser: push() after end()');
      const out: string[] = [];
      const n = text.length;
      let i = 0;
      while (i < n) {
        if (held === '') {
          if (!inCall && skipSpace) {
            while (i < n && isWhitespace(text[i] ?? '')) i++;
            if (i === n) break;
            skipSpace = false;
          }
          const lt = text.indexOf('<', i);
          const stop = lt === -1 ? n : lt;
          if (stop > i) (inCall ? body : out).push(text.slice(i, stop));
          if (lt === -1) break;
          held = '<';
          i = lt + 1;
          continue;
        }
        const next = held + text[i];
        if (inCall) {
          if (next === CALL_CLOSE) {
            held = '';
            i++;
            closeCall();
          } else if (CALL_CLOSE.startsWith(next)) {
            held = next;
            i++;
          } else {
            // Not the closing tag: what was held is body; the character is looked at again (it may be `<`).
            body.push(held);
            held = '';
          }
          continue;
        }
        if (next === CALL_OPEN) {
          held = '';
          i++;
          inCall = true;
        } else if (next === CALL_CLOSE) {
          held = '';
          i++;
          skipSpace = true;
        } else if (CALL_OPEN.startsWith(next) || CALL_CLOSE.startsWith(next)) {
          held = next;
          i++;
        } else {
          // Not a tag: what was held is text; the character is looked at again (it may be `<`).
          out.push(held);
          held = '';
        }
      }
      return out.join('');
    },
    end(): string {
      if (ended) return '';
      ended = true;
      let out = '';
      if (inCall) {
        addCall({ name: '', arguments: (body.join('') + held).trim(), error: UNTERMINATED });
        body = [];
        inCall = false;
      } else if (held === '<' || held === '</') {
        out = held;
      } else if (held !== '' && !held.startsWith('</')) {
        addCall({ name: '', arguments: '', error: UNTERMINATED });
      }
      held = '';
      return out;
    },
  };
}
