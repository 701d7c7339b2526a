/**
 * Assembles streamed tool-call fragments into complete calls. OpenAI-compatible servers send each
 * call as deltas keyed by `index`: the first usually carries `id` and `function.name`, the next ones
 * pieces of `function.arguments`. Servers differ in the details, so this is tolerant:
 * - no `index`: the delta's `id` picks its call (a new id starts a new call); without an id it
 *   continues the call of the previous delta;
 * - a new `id` at an index already used starts a new call (some servers send every call at index 0);
 * - no `id` at all: one is generated (`call_<random>`);
 * - empty arguments (a call without parameters, from some local servers): `{}`;
 * - `arguments` sent as an object instead of JSON text: serialised;
 * - the full name repeated in every delta: kept once.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCall } from '../types.js';

/** One fragment of a tool call, as read from a delta (or a whole call, from a complete message). */
export interface ToolCallDelta {
  index?: number;
  /** The fragment's position in its delta's `tool_calls` list. */
  position: number;
  id?: string;
  name?: string;
  /** A piece of the JSON text (or, from some servers, the arguments as an object). */
  arguments?: unknown;
}

/** Collects the fragments of one reply's tool calls. */
export interface ToolCallAssembler {
  add(delta: ToolCallDelta): void;
  /** The calls in index order. Entries with neither a name nor arguments are left out. */
  finish(): ToolCall[];
}

/** A generated call id, for servers that send none. */
function generateCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** An assembler for one reply (streamed deltas, or the calls of a whole message). */
export function createToolCallAssembler(): ToolCallAssembler {
  /** The calls in order of arrival; `index` is the wire index that opened the call (for sorting). */
  const calls: { index: number; id: string; name: string; arguments: string }[] = [];
  /** Wire index → the call it currently continues. */
  const byIndex = new Map<number, number>();
  const byId = new Map<string, number>();
  let last: number | undefined;

  const open = (index: number): number => {
    calls.push({ index, id: '', name: '', arguments: '' });
    return calls.length - 1;
  };

  /** The call a delta belongs to (its position in `calls`), opening a new one when it starts one. */
  const slotOf = (delta: ToolCallDelta): number => {
    const known = delta.id ? byId.get(delta.id) : undefined;
    if (known !== undefined) return known;
    if (delta.index !== undefined) {
      const slot = byIndex.get(delta.index);
      // A new id at a used index is a new call: some servers send every call at index 0.
      const current = slot === undefined ? undefined : calls[slot];
      if (slot !== undefined && !(delta.id && current?.id)) return slot;
      const fresh = open(delta.index);
      byIndex.set(delta.index, fresh);
      return fresh;
    }
    if (delta.id || last === undefined) return open(delta.position);
    return last;
  };

  return {
    add(delta) {
      const slot = slotOf(delta);
      last = slot;
      const call = calls[slot]!;
      if (delta.id && !call.id) {
        call.id = delta.id;
        byId.set(delta.id, slot);
      }
      if (delta.name && delta.name !== call.name) call.name += delta.name;
      if (typeof delta.arguments === 'string') call.arguments += delta.arguments;
      else if (delta.arguments !== undefined && delta.arguments !== null) call.arguments += JSON.stringify(delta.arguments);
    },
    finish() {
      return [...calls]
        .sort((a, b) => a.index - b.index)
        .filter((call) => call.name !== '' || call.arguments !== '')
        .map((call) => ({
          id: call.id || generateCallId(),
          name: call.name,
          arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
        }));
    },
  };
}
