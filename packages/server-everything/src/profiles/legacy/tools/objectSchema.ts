import type { JsonSchemaObject } from '@mcpkit/protocol-core/low-level';

/**
 * An object schema exactly as `zodToJsonSchema` wrote the reference's (key order included), for a tool's
 * `listing`: `type`, `properties`, `required` (only when something is required), `additionalProperties: false`,
 * `$schema`.
 */
export function objectSchema(properties: Record<string, JsonSchemaObject>, required?: readonly string[]): JsonSchemaObject {
  return {
    type: 'object',
    properties,
    ...(required ? { required: [...required] } : {}),
    additionalProperties: false,
    $schema: 'http://json-schema.org/draft-07/schema#',
  };
}
