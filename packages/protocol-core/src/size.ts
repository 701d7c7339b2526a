/**
 * How large an answer may be. The official SDK clients refuse any message over 10 MiB: the stdio client's
 * read buffer throws and the connection closes, so the call hangs until the client's own timeout. Every
 * answer here stays below `MAX_RESULT_BYTES`, which leaves room for the JSON-RPC envelope.
 */
import { Buffer } from 'node:buffer';

/** The largest message the official SDK clients accept (their stdio read buffer, `STDIO_DEFAULT_MAX_BUFFER_SIZE`). */
export const CLIENT_MESSAGE_LIMIT_BYTES = 10 * 1024 * 1024;

/** The largest answer (a tool result, a resource's contents, a prompt) a server here sends, as UTF-8 JSON. */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

/** The UTF-8 size of `JSON.stringify(value)`. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * An upper bound of `jsonBytes(value)` without serializing: every UTF-16 unit of a string takes at most 6
 * bytes in JSON (`\u001f`), a number at most 24, and each value or key adds a few bytes of punctuation.
 * Stops counting once past `stopAbove`.
 */
export function jsonBytesBound(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAbove) {
    const v = stack.pop();
    total += 4;
    if (typeof v === 'string') total += v.length * 6;
    else if (typeof v === 'number' || typeof v === 'bigint') total += 24;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        total += key.length * 6 + 4;
        stack.push(item);
      }
    }
  }
  return total;
}

/** The UTF-8 JSON size of `value` when it is over `limit`, else undefined; serializes only when the bound says it may be over. */
export function sizeOver(value: unknown, limit = MAX_RESULT_BYTES): number | undefined {
  if (jsonBytesBound(value, limit) <= limit) return undefined;
  const size = jsonBytes(value);
  return size > limit ? size : undefined;
}

/**
 * The largest `count` in `[0, max]` (approximately) for which `build(count)` fits in `limit` bytes of JSON,
 * assuming the size grows with `count`; for an answer that has to be cut to a page. Shrinks in proportion
 * to the overshoot, so a few tries at most.
 */
export async function fitCount<T>(
  max: number,
  build: (count: number) => T | Promise<T>,
  limit = MAX_RESULT_BYTES,
): Promise<{ count: number; value: T }> {
  let count = max;
  for (;;) {
    const value = await build(count);
    const size = sizeOver(value, limit);
    if (size === undefined || count === 0) return { count, value };
    count = Math.min(count - 1, Math.floor((count * limit * 0.95) / size));
  }
}

/** "8.0 MiB (8388608 bytes)" */
export function formatSize(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB (${bytes} bytes)`;
}
