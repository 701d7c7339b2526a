/**
 * Input schemas listed with the reference's spelling of nullable parameters. zod 4 writes `string | null`
 * as `type: ["string", "null"]` (its `compactTypeUnion` pass, which no schema shape avoids); the reference
 * (pydantic) writes `anyOf: [{type: "string"}, {type: "null"}]`, and some clients (and function-calling
 * APIs that take an OpenAPI-3.0-like subset) reject the array form.
 *
 * The SDK lists a tool's `inputSchema` through the Standard JSON Schema interface every input schema
 * implements (`schema['~standard'].jsonSchema.input(...)`), so this wraps that one method of the tool's zod
 * object: validation (`~standard.validate`, zod's parse) is untouched, only the listed JSON changes. Output
 * schemas are listed as the SDK renders them (protocol-core builds those objects).
 */
import type { AnyToolDefinition } from '@mcpkit/protocol-core';
import { z } from 'zod';

type Json = Record<string, unknown>;

/** A copy of `schema` with every `type: [..., "null"]` written as `anyOf` of bare types (constraints stay beside it). */
function nullableAsAnyOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsAnyOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'type' && Array.isArray(value) && value.length > 1) {
      out.anyOf = value.map((type) => ({ type }));
    } else out[key] = key === 'default' || key === 'const' || key === 'enum' ? value : nullableAsAnyOf(value);
  }
  return out;
}

/** A zod object of `input` (a shape or an object) whose JSON Schema rendering spells nullables as `anyOf`. */
export function listedWithAnyOf(input: z.ZodRawShape | z.ZodObject): z.ZodObject {
  // A fresh object each time, so the schema a tool module exports is never changed.
  const object = input instanceof z.ZodObject ? input.clone() : z.object(input);
  const standard = object['~standard'];
  const render = standard.jsonSchema;
  object['~standard'] = {
    ...standard,
    jsonSchema: {
      input: (options) => nullableAsAnyOf(render.input(options)) as Json,
      output: (options) => nullableAsAnyOf(render.output(options)) as Json,
    },
  };
  return object;
}

/** `tools` with their input schemas listed the reference's way (see `listedWithAnyOf`). */
export function withReferenceListing<Ctx>(tools: ReadonlyArray<AnyToolDefinition<Ctx>>): AnyToolDefinition<Ctx>[] {
  return tools.map((tool) => ({ ...tool, input: listedWithAnyOf(tool.input) }));
}
