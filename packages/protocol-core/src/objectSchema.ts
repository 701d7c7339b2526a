/**
 * The zod object of a shape (`{ name: z.string() }`), built once per shape object and shared by every server
 * built from the same definitions. Over Streamable HTTP a 2026-07-28 request gets a fresh server (the SDK's
 * factory runs per request), and `z.object()` of every tool's shape was a measurable part of building one.
 * A memo of immutable values keyed by the definitions' own objects, not state: nothing a server does changes it.
 *
 * The object's JSON Schemas are memoised too (`jsonSchemaOnce.ts`): the SDK converts a tool's input schema on
 * every fresh server (the HTTP entry's `Mcp-Param-*` check, `tools/list`) and its output schema on the first call.
 */
import { z } from 'zod';
import { jsonSchemaOnce } from './jsonSchemaOnce.js';

const objectSchemas = new WeakMap<z.ZodRawShape, z.ZodObject>();

/** `input` itself if it is a zod object, else the (memoised) `z.object(input)`; its JSON Schemas computed once. */
export function asObject(input: z.ZodRawShape | z.ZodObject): z.ZodObject {
  if (input instanceof z.ZodObject) return jsonSchemaOnce(input);
  let schema = objectSchemas.get(input);
  if (!schema) {
    schema = jsonSchemaOnce(z.object(input));
    objectSchemas.set(input, schema);
  }
  return schema;
}

/** The two schemas of a tool: what its arguments and its structured answer are checked with. */
export interface ToolSchemas {
  input: z.ZodObject;
  output?: z.ZodObject;
}

/**
 * The very schema objects `registerTools` hands the SDK for a tool definition (`asObject` of its `input` and
 * `output`): parsing a value through them is what a call through the SDK does. In-process callers use them to
 * check, or to get ready ahead of a first call, what a call would check (server-git's read-ahead).
 */
export function toolSchemas(tool: { input: z.ZodRawShape | z.ZodObject; output?: z.ZodRawShape | undefined }): ToolSchemas {
  return { input: asObject(tool.input), ...(tool.output ? { output: asObject(tool.output) } : {}) };
}
