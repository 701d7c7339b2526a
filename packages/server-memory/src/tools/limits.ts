import { formatSize, jsonBytesBound, MAX_RESULT_BYTES, sizeOver, structuredResult, ToolError } from '@mcpkit/protocol-core';

/** Caps on what one call may write. */
export interface Limits {
  maxNameLength: number;
  maxObservationLength: number;
  maxItemsPerCall: number;
}

export const DEFAULT_LIMITS: Limits = { maxNameLength: 1000, maxObservationLength: 10_000, maxItemsPerCall: 1000 };

export function checkCount(count: number, what: string, limits: Limits): void {
  if (count > limits.maxItemsPerCall) {
    throw new ToolError(`Too many ${what} in one call: ${count}; at most ${limits.maxItemsPerCall} are allowed. Split the call.`);
  }
}

export function checkName(value: string, where: string, limits: Limits): void {
  if (value.length > limits.maxNameLength) {
    throw new ToolError(`${where} is ${value.length} characters long; at most ${limits.maxNameLength} are allowed`);
  }
}

export function checkObservations(values: readonly string[], where: string, limits: Limits): void {
  values.forEach((value, i) => {
    if (value.length > limits.maxObservationLength) {
      throw new ToolError(`${where}[${i}] is ${value.length} characters long; at most ${limits.maxObservationLength} are allowed`);
    }
  });
}

/**
 * Refuses, before anything is written, a write whose answer would be over the answer limit (clients drop
 * messages over 10 MiB): the write tools echo what they wrote, as JSON text and as `structuredContent`, so
 * the echo of `items` (under `key`) bounds the answer. Serializes only for large inputs.
 */
export function checkEcho(key: string, items: readonly unknown[]): void {
  if (jsonBytesBound(items, MAX_RESULT_BYTES) * 4 <= MAX_RESULT_BYTES) return;
  const size = sizeOver(structuredResult({ [key]: items }, JSON.stringify(items, null, 2)));
  if (size === undefined) return;
  throw new ToolError(
    `The answer to this call, which echoes what it writes, would be ${formatSize(size)}, over the answer limit of ` +
      `${formatSize(MAX_RESULT_BYTES)}; nothing was written. Split the call.`,
  );
}
