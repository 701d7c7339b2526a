import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { FIXED_RESULT } from './fixed.js';

/**
 * The input schema as `tools/list` shows it: the suite's JSON Schema 2020-12 document, `$schema`, `$defs` (with an
 * `$anchor`), `additionalProperties`, `allOf`/`anyOf` and `if`/`then`/`else` included (SEP-1613, SEP-2106: servers
 * must not strip them).
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema 2020-12 keyword.
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/**
 * The same schema for the SDK, which validates `tools/call` arguments with it (the properties' types and
 * `additionalProperties`; the composition and conditional keywords are listed, not enforced). zod 4 merges `.meta()`
 * into the rendering, so the metadata replaces what differs (`$schema`, the `$ref` to `$defs`, the keywords zod has
 * no words for) and `.strict()` gives `additionalProperties: false`. `test/conformance` checks that the listing
 * equals `JSON_SCHEMA_2020_12_INPUT`.
 */
const { type: _type, additionalProperties: _additionalProperties, ...meta } = JSON_SCHEMA_2020_12_INPUT;
const input = z
  .object({
    name: z.string().optional(),
    address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
    contactMethod: z.enum(['phone', 'email']).optional(),
    phone: z.string().optional(),
    email: z.string().optional(),
  })
  .strict()
  .meta(meta);

/**
 * Scenario `json-schema-2020-12`. Its `input` is a zod object, not a shape: a shape cannot be strict or
 * carry JSON Schema metadata.
 */
export const jsonSchema2020Tool = defineTool({
  name: 'json_schema_2020_12_tool',
  title: 'JSON Schema 2020-12 (SEP-1613)',
  description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)',
  input,
  annotations: FIXED_RESULT,
  handler: (args) => textResult(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
});
