import type { CallToolResult } from '@modelcontextprotocol/server';

/** A tool result whose `structuredContent` has the shape `T`. */
export type ToolResult<T = Record<string, unknown>> = CallToolResult & { structuredContent?: T };

/** A plain text result. */
export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * A result carrying `structuredContent` plus a text fallback for clients that only render `content`.
 * The text defaults to the JSON of the data, pretty-printed with two spaces (the reference servers' form).
 */
export function structuredResult<T extends object>(data: T, text?: string): ToolResult<T> {
  const structuredContent = data as T & Record<string, unknown>;
  return { content: [{ type: 'text', text: text ?? JSON.stringify(data, null, 2) }], structuredContent };
}

/** An `isError` result with the given text. */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
