import { normalizeObjectSchema, safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { globalRegistry } from 'zod/v4/core';
import { CAPTURE, cachedConverter, schemaFingerprint } from '../src/jsonSchemaCache.js';

const fingerprint = (schema: unknown) => schemaFingerprint(schema, globalRegistry);
const INPUT = { strictUnions: true, pipeStrategy: 'input' } as const;
const OUTPUT = { strictUnions: true, pipeStrategy: 'output' } as const;
const convert = (schema: unknown, opts: object = INPUT) => toJsonSchemaCompat(schema as never, opts as never);
/** As McpServer holds a tool's input: the raw shape made an object schema by the SDK. */
const objectOf = (shape: Shape) => normalizeObjectSchema(shape as never)!;

type Shape = Record<string, z.ZodType>;

/** A tool's input shape, built afresh on every call (as a second process would build it). */
function shape(): Shape {
  const node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(node).optional() }));
  return {
    repo_path: z.string().meta({ title: 'Repo Path' }).describe('Path of the work tree'),
    max_count: z.number().int().min(1).max(1000).default(10).describe('Most commits to list'),
    mode: z.enum(['soft', 'mixed', 'hard']).optional(),
    paths: z.array(z.string().min(1)).optional(),
    since: z
      .string()
      .regex(/^\d{4}-\d\d-\d\d$/)
      .nullable()
      .default(null),
    url: z.url().optional(),
    kind: z.union([z.literal('a'), z.object({ b: z.boolean() })]).optional(),
    tree: node.optional(),
    level: z.number().catch(3),
    count: z
      .string()
      .transform((s) => s.length)
      .pipe(z.number())
      .optional(),
  };
}

/** Changes of `shape()` that each change its JSON Schema. */
const variations: Record<string, (s: Shape) => void> = {
  description: (s) => {
    s.repo_path = z.string().meta({ title: 'Repo Path' }).describe('Another text');
  },
  title: (s) => {
    s.repo_path = z.string().meta({ title: 'Path' }).describe('Path of the work tree');
  },
  default: (s) => {
    s.max_count = z.number().int().min(1).max(1000).default(20).describe('Most commits to list');
  },
  bound: (s) => {
    s.max_count = z.number().int().min(1).max(999).default(10).describe('Most commits to list');
  },
  'int to number': (s) => {
    s.max_count = z.number().min(1).max(1000).default(10).describe('Most commits to list');
  },
  'enum value': (s) => {
    s.mode = z.enum(['soft', 'hard']).optional();
  },
  required: (s) => {
    s.mode = z.enum(['soft', 'mixed', 'hard']);
  },
  pattern: (s) => {
    s.since = z
      .string()
      .regex(/^\d{4}$/)
      .nullable()
      .default(null);
  },
  format: (s) => {
    s.url = z.email().optional();
  },
  'union member': (s) => {
    s.kind = z.union([z.literal('b'), z.object({ b: z.boolean() })]).optional();
  },
  'recursive member': (s) => {
    const node: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    s.tree = node.optional();
  },
  'catch value': (s) => {
    s.level = z.number().catch(4);
  },
  'pipe source': (s) => {
    s.count = z
      .string()
      .min(2)
      .transform((v) => v.length)
      .pipe(z.number())
      .optional();
  },
  'extra property': (s) => {
    s.more = z.boolean();
  },
  'property order': (s) => {
    const { repo_path, ...rest } = s;
    for (const key of Object.keys(s)) delete s[key];
    Object.assign(s, rest, { repo_path });
  },
};

afterEach(() => {
  delete (globalThis as { [CAPTURE]?: unknown })[CAPTURE];
});

describe('schemaFingerprint', () => {
  it('is the same for schemas built alike, and so is their JSON Schema', () => {
    const a = objectOf(shape());
    const b = objectOf(shape());
    expect(fingerprint(a)).toBeTypeOf('string');
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(JSON.stringify(convert(a))).toBe(JSON.stringify(convert(b)));
  });

  it('does not change once the schema has been used (lazy schemas cache their inner schema)', () => {
    const schema = objectOf(shape());
    const before = fingerprint(schema);
    convert(schema);
    convert(schema, OUTPUT);
    expect(safeParse(schema, { repo_path: '.', tree: { name: 'a', children: [{ name: 'b' }] } }).success).toBe(true);
    expect(fingerprint(schema)).toBe(before);
  });

  it.each(Object.entries(variations))('differs after a change of %s (as the JSON Schema does)', (_, change) => {
    const base = objectOf(shape());
    const changed = shape();
    change(changed);
    const other = objectOf(changed);
    expect(JSON.stringify(convert(other))).not.toBe(JSON.stringify(convert(base)));
    expect(fingerprint(other)).not.toBe(fingerprint(base));
  });

  it('ignores what the conversion ignores: refinements, transforms and error messages', () => {
    const a = objectOf({ n: z.number().refine((v) => v > 1, 'too small'), s: z.string({ error: 'no' }) });
    const b = objectOf({ n: z.number().refine((v) => v > 2, 'other'), s: z.string({ error: () => 'other' }) });
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(JSON.stringify(convert(a))).toBe(JSON.stringify(convert(b)));
  });

  it('takes a default computed on each read at its current value', () => {
    let n = 1;
    const schema = objectOf({ n: z.number().default(() => n) });
    const first = fingerprint(schema);
    n = 2;
    expect(fingerprint(schema)).not.toBe(first);
  });

  it('gives up (undefined) on what it cannot account for', () => {
    const custom = z.string();
    (custom._zod as { toJSONSchema?: () => object }).toJSONSchema = () => ({ type: 'number' });
    expect(fingerprint(objectOf({ custom }))).toBeUndefined();
    expect(
      fingerprint(
        objectOf({
          c: z.number().catch(() => {
            throw new Error('no static catch value');
          }),
        }),
      ),
    ).toBeUndefined();
    expect(fingerprint({ type: 'object' })).toBeUndefined();
  });
});

describe('cachedConverter', () => {
  it('converts a schema once per fingerprint and options, handing out copies', () => {
    const inner = vi.fn(convert);
    const cached = cachedConverter(inner, globalRegistry);
    const first = cached(objectOf(shape()) as never, INPUT);
    const again = cached(objectOf(shape()) as never, INPUT);
    expect(inner).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    (again as { mutated?: boolean }).mutated = true;
    expect(cached(objectOf(shape()) as never, INPUT)).not.toHaveProperty('mutated');
    cached(objectOf(shape()) as never, OUTPUT);
    expect(inner).toHaveBeenCalledTimes(2);
  });

  it('serves a precomputed table (as a build writes it) without converting', () => {
    const capture = new Map<string, string>();
    (globalThis as { [CAPTURE]?: unknown })[CAPTURE] = capture;
    const recorder = cachedConverter(convert, globalRegistry);
    const expected = JSON.stringify(recorder(objectOf(shape()) as never, INPUT));
    expect(capture.size).toBe(1);
    delete (globalThis as { [CAPTURE]?: unknown })[CAPTURE];

    const inner = vi.fn(convert);
    const cached = cachedConverter(inner, globalRegistry, JSON.stringify(Object.fromEntries(capture)));
    expect(JSON.stringify(cached(objectOf(shape()) as never, INPUT))).toBe(expected);
    expect(inner).not.toHaveBeenCalled();
    const changed = shape();
    variations.default!(changed);
    cached(objectOf(changed) as never, INPUT);
    expect(inner).toHaveBeenCalledTimes(1);
  });

  it('converts everything when the table is an unfilled placeholder, and always for an uncacheable schema', () => {
    const inner = vi.fn(convert);
    const cached = cachedConverter(inner, globalRegistry, '__MCPKIT_PRECOMPUTED_JSON_SCHEMAS__');
    expect(JSON.stringify(cached(objectOf(shape()) as never, INPUT))).toBe(JSON.stringify(convert(objectOf(shape()))));
    const custom = z.string();
    (custom._zod as { toJSONSchema?: () => object }).toJSONSchema = () => ({ type: 'number' });
    cached(objectOf({ custom }) as never, INPUT);
    cached(objectOf({ custom }) as never, INPUT);
    expect(inner).toHaveBeenCalledTimes(3);
  });
});
