import { describe, expect, it } from 'vitest';
import { sanitizeToolSchema } from '../src/llm/sanitizeSchema.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe('sanitizeToolSchema', () => {
  it('makes the top level an object schema with properties', () => {
    expect(sanitizeToolSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(sanitizeToolSchema({})).toEqual({ type: 'object', properties: {} });
    expect(sanitizeToolSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
    expect(sanitizeToolSchema({ type: ['object', 'null'], properties: 'bad' })).toEqual({ type: 'object', properties: {} });
    expect(sanitizeToolSchema({ properties: { a: { type: 'string' } } })).toEqual({
      properties: { a: { type: 'string' } },
      type: 'object',
    });
  });

  it('drops $schema, $id and $comment wherever they are keywords, not where they are names or data', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:tool',
      $comment: 'generated',
      type: 'object',
      properties: {
        $id: { type: 'string', $comment: 'a property called $id' },
        list: { type: 'array', items: { $id: '#item', type: 'object', properties: { x: { $schema: 'x', type: 'number' } } } },
        tuple: { type: 'array', items: [{ $comment: 'c', type: 'string' }] },
        choice: { anyOf: [{ $id: 'a', type: 'string' }, { not: { $comment: 'n', type: 'null' } }] },
        extra: { type: 'object', additionalProperties: { $schema: 's', type: 'string' } },
        data: { type: 'object', default: { $id: 'kept', $comment: 'kept' }, enum: [{ $schema: 'kept' }], const: { $id: 1 } },
      },
      $defs: { Node: { $id: 'node', type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    };
    expect(sanitizeToolSchema(schema)).toEqual({
      type: 'object',
      properties: {
        $id: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
        tuple: { type: 'array', items: [{ type: 'string' }] },
        choice: { anyOf: [{ type: 'string' }, { not: { type: 'null' } }] },
        extra: { type: 'object', additionalProperties: { type: 'string' } },
        data: { type: 'object', default: { $id: 'kept', $comment: 'kept' }, enum: [{ $schema: 'kept' }], const: { $id: 1 } },
      },
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    });
  });

  it('keeps descriptions, enums, required, formats, bounds and boolean schemas', () => {
    const schema = {
      type: 'object',
      description: 'Search.',
      properties: {
        q: { type: 'string', description: 'The query.', minLength: 1, format: 'uri' },
        mode: { type: 'string', enum: ['fast', 'deep'], default: 'fast' },
        extra: true,
      },
      required: ['q'],
      additionalProperties: false,
    };
    expect(sanitizeToolSchema(schema)).toEqual(schema);
  });

  it('never modifies its input and shares nothing with it', () => {
    const schema = deepFreeze({ $schema: 'x', type: 'object', properties: { a: { type: 'array', items: { $id: 'i', enum: [[1]] } } } });
    const copy = sanitizeToolSchema(schema);
    expect(schema.$schema).toBe('x');
    const items = (copy.properties as { a: { items: { enum: unknown[][] } } }).a.items;
    expect(items).toEqual({ enum: [[1]] });
    expect(items.enum[0]).not.toBe(schema.properties.a.items.enum[0]);
    expect(Object.isFrozen(items)).toBe(false);
  });
});
