import { ToolError } from '@mcpkit/protocol-core';

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
