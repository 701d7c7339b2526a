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

const KiB = 1024;
const MiB = 1024 * 1024;

/**
 * A size for people: `512 bytes`, `4.9 KiB`, `128 KiB`, `8 MiB` (one decimal at most, none when it is 0).
 * With `exact`, for a configured limit, where two sizes must not read the same: a unit only when the size
 * is a whole number of it (`128 KiB`, `8 MiB`), else bytes (`100000 bytes`).
 * The one byte formatter of mcpkit (fetch's and git's progress and limit messages, sequential-thinking's
 * limits); `@mcpkit/net`, which does not depend on this package, writes its limit errors as the default form.
 * Also exported as `@mcpkit/protocol-core/size`, which loads nothing else (for worker threads).
 */
export function formatBytes(n: number, { exact = false }: { exact?: boolean } = {}): string {
  if (exact) {
    if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
    if (n >= KiB && n % KiB === 0) return `${n / KiB} KiB`;
    return `${n} bytes`;
  }
  if (n < KiB) return `${n} bytes`;
  const [value, unit] = n < MiB ? [n / KiB, 'KiB'] : [n / MiB, 'MiB'];
  return `${value.toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/**
 * "8.0 MiB (8388608 bytes)": an answer's size next to the answer limit, in MiB with one decimal always
 * and the exact count, so that sizes just over the limit still read as over it (`formatBytes` would
 * show 8388609 bytes as `8 MiB`).
 */
export function formatSize(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB (${bytes} bytes)`;
}
