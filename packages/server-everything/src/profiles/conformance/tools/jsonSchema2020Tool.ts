import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { FIXED_RESULT } from './fixed.js';

/**
 * The input schema as `tools/list` shows it: the suite's JSON Schema 2020-12 document, `$schema`, `$defs`
 * and `additionalProperties` included (SEP-1613: servers must not strip them).
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
} as const;

/**
 * The same schema for the SDK, which validates `tools/call` arguments with it. The SDK renders a zod
 * schema as draft-07 without `$defs`; zod 4 merges `.meta()` into the rendering, so the metadata
 * replaces what differs (`$schema`, the `$ref` to `$defs`) and `.strict()` gives `additionalProperties: false`.
 * `test/conformance` checks that the listing equals `JSON_SCHEMA_2020_12_INPUT`.
 */
const input = z
  .object({
    name: z.string().optional(),
    address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
  })
  .strict()
  .meta({
    $schema: JSON_SCHEMA_2020_12_INPUT.$schema,
    $defs: JSON_SCHEMA_2020_12_INPUT.$defs,
    properties: JSON_SCHEMA_2020_12_INPUT.properties,
  });

/**
 * Scenario `json-schema-2020-12`. Its `input` is a zod object, not a shape: a shape cannot be strict or
 * carry JSON Schema metadata.
 */
export const jsonSchema2020Tool = defineTool({
  name: 'json_schema_2020_12_tool',
  title: 'JSON Schema 2020-12 (SEP-1613)',
  description: 'Tool with JSON Schema 2020-12 features ($schema, $defs, additionalProperties) for conformance testing (SEP-1613)',
  input,
  annotations: FIXED_RESULT,
  handler: (args) => textResult(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
});
