/**
 * The zod object of a shape (`{ name: z.string() }`), built once per shape object and shared by every server
 * built from the same definitions. Over Streamable HTTP a 2026-07-28 request gets a fresh server (the SDK's
 * factory runs per request), and `z.object()` of every tool's shape was a measurable part of building one.
 * A memo of immutable values keyed by the definitions' own objects, not state: nothing a server does changes it.
 */
import { z } from 'zod';

const objectSchemas = new WeakMap<z.ZodRawShape, z.ZodObject>();

/** `input` itself if it is a zod object, else the (memoised) `z.object(input)`. */
export function asObject(input: z.ZodRawShape | z.ZodObject): z.ZodObject {
  if (input instanceof z.ZodObject) return input;
  let schema = objectSchemas.get(input);
  if (!schema) {
    schema = z.object(input);
    objectSchemas.set(input, schema);
  }
  return schema;
}
