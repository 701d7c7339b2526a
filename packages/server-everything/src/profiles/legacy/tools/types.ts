import type { Annotations, RequestExtra } from '@mcpkit/protocol-core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { LegacySession } from '../session.js';

/** A JSON Schema as the reference's `zodToJsonSchema` emitted it. */
export type JsonSchema = { [key: string]: unknown };

/**
 * An object schema exactly as `zodToJsonSchema` wrote the reference's (key order included):
 * `type`, `properties`, `required` (only when something is required), `additionalProperties: false`, `$schema`.
 */
export function objectSchema(properties: Record<string, JsonSchema>, required?: readonly string[]): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required ? { required: [...required] } : {}),
    additionalProperties: false,
    $schema: 'http://json-schema.org/draft-07/schema#',
  };
}

/**
 * A legacy tool: the reference's wire data (name, description, JSON Schemas) exactly, our title and four
 * hints, a zod schema with the reference's zod 3 semantics (unknown keys stripped, defaults applied) and
 * the handler. A thrown `ToolError` or `McpError` becomes a JSON-RPC error as in the reference.
 */
export interface LegacyTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: Annotations;
  args: S;
  /** Listed in `tools/list` only for clients that declared this capability (still callable by name, as in the reference). */
  listedFor?: 'roots' | 'elicitation';
  call(args: z.output<S>, session: LegacySession, extra: RequestExtra): CallToolResult | Promise<CallToolResult>;
}

export function defineLegacyTool<S extends z.ZodType>(tool: LegacyTool<S>): LegacyTool<S> {
  return tool;
}

// biome-ignore lint/suspicious/noExplicitAny: a list of tools has heterogeneous argument schemas.
export type AnyLegacyTool = LegacyTool<any>;
