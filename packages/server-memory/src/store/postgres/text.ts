/** Text rules of the PostgreSQL store: `text` cannot hold NUL, and search patterns are escaped. */
import { ToolError } from '@mcpkit/protocol-core';

export const hasNul = (value: string): boolean => value.includes('\u0000');

/** Refuses a value PostgreSQL cannot store, naming the field (`entities[0].name`). */
export function checkStorable(value: string, where: string): void {
  if (hasNul(value)) {
    throw new ToolError(`${where} contains a NUL character (\\u0000), which the PostgreSQL store cannot hold; nothing was written`);
  }
}

/** `%query%` for ILIKE with `\\` as the escape character: `%`, `_` and `\\` in the query match themselves. */
export function containsPattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
