/**
 * Tool input schemas as providers accept them. MCP servers publish any JSON Schema; provider
 * function-calling APIs accept a narrower dialect and reject a whole request over one keyword. The
 * schema is sanitised here, at the provider edge only: the MCP side keeps the original (argument
 * validation, `tools/list` output).
 *
 * Deliberately conservative: only what is known to make requests fail is changed. Everything else
 * (`$defs`/`$ref`, `description`, `enum`, `required`, formats, bounds…) is passed on unchanged,
 * because each keyword dropped is information the model no longer sees.
 */
import type { JsonSchema } from '../types.js';

/**
 * Keywords removed wherever they appear as schema keywords. They are metadata for validators and
 * tooling, not for the model, and some providers refuse them: `$schema` (draft URIs that some
 * validators behind the APIs do not know), `$id` (would re-base `$ref` resolution and is refused in
 * nested schemas), `$comment` (never useful to the model).
 */
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set(['$schema', '$id', '$comment']);

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);

/** Keywords whose value is a list of subschemas (`items` too, in its draft-07 tuple form). */
const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

/**
 * Keywords whose value maps names to subschemas. Their keys are property or definition names, not
 * keywords: a property called `$id` is kept.
 */
const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON data (`enum`, `const`, `default`, `examples`…): values are data, never rewritten. */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyData(item)]));
  return value;
}

/** A copy of one (sub)schema without the dropped keywords. Boolean schemas (`true`/`false`) stay as they are. */
function copySchema(schema: unknown): unknown {
  if (!isObject(schema)) return copyData(schema);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) out[key] = value.map(copySchema);
    else if (SCHEMA_KEYWORDS.has(key)) out[key] = copySchema(value);
    else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, copySchema(sub)]));
    else out[key] = copyData(value);
  }
  return out;
}

/**
 * A provider-ready copy of a tool's input schema (the input is never modified).
 *
 * - The top level is always `type: "object"`: function arguments are an object, and OpenAI refuses
 *   any other top-level type (MCP requires `object` too, but servers send `["object"]` or nothing).
 * - The top level always has `properties` (`{}` when missing): OpenAI refuses an object schema
 *   without it, which is what a tool without parameters often publishes.
 * - `$schema`, `$id` and `$comment` are dropped wherever they are schema keywords (see above).
 */
export function sanitizeToolSchema(schema: JsonSchema | undefined): JsonSchema {
  const copy = copySchema(isObject(schema) ? schema : {}) as JsonSchema;
  copy.type = 'object';
  if (!isObject(copy.properties)) copy.properties = {};
  return copy;
}
