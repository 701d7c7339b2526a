/**
 * A zod schema's Standard JSON Schema (`~standard.jsonSchema.input/output`, what the SDK converts a tool's
 * schemas with) computed once per schema and target instead of on every call. zod recomputes `z.toJSONSchema`
 * each time; the SDK asks once per server instance, and over Streamable HTTP a 2026-07-28 request gets a fresh
 * instance. The memoised JSON Schema is deep-frozen: requests share it, so nothing may change it.
 */
import type { z } from 'zod';

type Convert = (params?: { target?: string; libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;
interface StandardJson {
  jsonSchema?: { input: Convert; output: Convert };
}

const done = new WeakSet<object>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function once(convert: Convert): Convert {
  const byTarget = new Map<string | undefined, Record<string, unknown>>();
  return (params) => {
    // Only the plain `{ target }` call (the SDK's) is memoised; library options go through as they are.
    if (params?.libraryOptions !== undefined) return convert(params);
    const key = params?.target;
    let json = byTarget.get(key);
    if (!json) {
      json = deepFreeze(convert(params));
      byTarget.set(key, json);
    }
    return json;
  };
}

/** `schema` itself, its `~standard.jsonSchema` converters memoised (once per schema object). */
export function jsonSchemaOnce<S extends z.ZodType>(schema: S): S {
  if (done.has(schema)) return schema;
  done.add(schema);
  const standard = schema['~standard'] as S['~standard'] & StandardJson;
  const json = standard.jsonSchema;
  if (!json) return schema;
  // zod's own `~standard` is a settable, memoised own property; this one only adds the memo.
  (schema as { '~standard': unknown })['~standard'] = {
    ...standard,
    jsonSchema: { input: once(json.input.bind(json)), output: once(json.output.bind(json)) },
  };
  return schema;
}
