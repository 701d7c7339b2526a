import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asObject } from '../src/objectSchema.js';

describe('asObject', () => {
  it('builds a shape’s zod object once', () => {
    const shape = { name: z.string() };
    expect(asObject(shape)).toBe(asObject(shape));
  });

  it('converts to JSON Schema once per target, the same frozen value every time, still what zod says', () => {
    const schema = asObject({ name: z.string().describe('who'), count: z.number().optional() });
    const convert = schema['~standard'].jsonSchema;
    const first = convert.input({ target: 'draft-2020-12' });
    expect(convert.input({ target: 'draft-2020-12' })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { properties: object }).properties)).toBe(true);
    expect(first).toEqual(
      z.toJSONSchema(z.object({ name: z.string().describe('who'), count: z.number().optional() }), {
        target: 'draft-2020-12',
        io: 'input',
      }),
    );
    expect(convert.input({ target: 'draft-07' })).not.toBe(first);
  });

  it('memoises a given zod object’s conversions too, and still validates', async () => {
    const given = z.object({ n: z.number() }).strict();
    const schema = asObject(given);
    expect(schema).toBe(given);
    expect(schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' })).toBe(
      schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' }),
    );
    expect(await schema['~standard'].validate({ n: 1 })).toEqual({ value: { n: 1 } });
    expect((await schema['~standard'].validate({ n: 'x' })).issues?.length).toBeGreaterThan(0);
  });
});
