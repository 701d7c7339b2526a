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
