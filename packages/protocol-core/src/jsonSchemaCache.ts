/**
 * A cache for the SDK's zod → JSON Schema conversion (`toJsonSchemaCompat`, which `McpServer` runs for
 * every tool's input and output schema on every `tools/list`). Not exported from the package: the
 * server bins built by `tsup.server.ts` put it in front of the SDK's converter, and fill it at build
 * time with the conversions of the bin's own tools, so a cold start's first `tools/list` runs no
 * `z.toJSONSchema` at all (about 10 ms of the git server's 120 ms cold start).
 *
 * Entries are keyed by a fingerprint of the schema, not by a tool's name: a server whose options change
 * a schema (a default, a description, a tool left out) simply misses and converts as before. The
 * fingerprint covers everything zod's converter reads (see `schemaFingerprint`); anything it cannot
 * account for makes the schema uncacheable, never wrongly cached.
 */

/** zod 4's per-schema internals (`schema._zod`) that the JSON Schema converter reads. */
interface ZodInternals {
  def: Record<string, unknown> & { type?: string; catchValue?: (ctx: unknown) => unknown };
  /** The class that built the node, which decides its traits. */
  constr?: { name?: string };
  traits?: Set<string>;
  parent?: unknown;
  innerType?: unknown;
  toJSONSchema?: unknown;
}

type ZodLike = { _zod: ZodInternals };

/** zod's metadata registry (`z.globalRegistry`): `.describe()`, `.meta()`. */
interface MetadataRegistry {
  get(schema: object): unknown;
}

const isZod = (value: unknown): value is ZodLike =>
  typeof value === 'object' && value !== null && typeof (value as ZodLike)._zod === 'object' && (value as ZodLike)._zod !== null;

class Uncacheable extends Error {}

/**
 * A string that is equal for two zod 4 schemas only if `z.toJSONSchema` gives them the same result,
 * or undefined when the schema has something it cannot account for (a custom `toJSONSchema` on a
 * node, a catch value that throws, a `Map` in a definition…).
 *
 * Per node it takes what the converter reads: the definition (`_zod.def`, all of it, checks included:
 * the derived `bag`, `optin`/`optout` and `pattern` follow from it), the class (it decides the traits
 * the converter asks about: a codec and a pipe share a definition type), the parent (`.describe()` and `.meta()` clones), the metadata from
 * `registry`, a lazy schema's inner schema and a catch schema's value. Functions in a definition
 * (refinements, transforms, error maps) count only as being there: the converter never calls them.
 * A node met again is written as a back-reference, so shared and recursive schemas are covered too.
 */
export function schemaFingerprint(schema: unknown, registry: MetadataRegistry): string | undefined {
  const ids = new Map<object, number>();
  const out: string[] = [];

  const node = (s: ZodLike): void => {
    const id = ids.get(s);
    if (id !== undefined) {
      out.push(`#${id}`);
      return;
    }
    ids.set(s, ids.size);
    const z = s._zod;
    if (z.toJSONSchema !== undefined) throw new Uncacheable();
    out.push('<');
    // The traits follow from the class; its name is enough (and far shorter than the traits).
    if (z.constr?.name) out.push(z.constr.name);
    else if (z.traits) for (const trait of z.traits) out.push(trait, ',');
    out.push('|');
    if (z.def.type === 'lazy') {
      // Its definition is the getter (and, once read, a cached copy of what `innerType` gives).
      out.push('lazy|l');
      value(z.innerType);
    } else value(z.def);
    const meta = registry.get(s);
    if (meta !== undefined) {
      out.push('|m');
      value(meta);
    }
    if (isZod(z.parent)) {
      out.push('|p');
      node(z.parent);
    }
    if (z.def.type === 'catch' && typeof z.def.catchValue === 'function') {
      out.push('|c');
      let caught: unknown;
      try {
        caught = z.def.catchValue(undefined);
      } catch {
        throw new Uncacheable();
      }
      value(caught);
    }
    out.push('>');
  };

  const value = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        out.push(JSON.stringify(v));
        return;
      case 'number':
        out.push(Object.is(v, -0) ? '-0' : String(v));
        return;
      case 'boolean':
        out.push(v ? 'T' : 'F');
        return;
      case 'undefined':
        out.push('U');
        return;
      case 'bigint':
        out.push(`${v}n`);
        return;
      case 'function':
        out.push('f');
        return;
      case 'symbol':
        throw new Uncacheable();
    }
    if (v === null) {
      out.push('N');
      return;
    }
    if (isZod(v)) {
      node(v);
      return;
    }
    if (Array.isArray(v)) {
      out.push('[');
      for (const item of v) {
        value(item);
        out.push(',');
      }
      out.push(']');
      return;
    }
    if (v instanceof RegExp) {
      out.push('R', JSON.stringify(v.toString()));
      return;
    }
    if (v instanceof Date) {
      out.push('D', String(v.getTime()));
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw new Uncacheable();
    out.push('{');
    for (const key of Object.keys(v as object)) {
      out.push(JSON.stringify(key), ':');
      value((v as Record<string, unknown>)[key]);
      out.push(',');
    }
    out.push('}');
  };

  if (!isZod(schema)) return undefined;
  try {
    node(schema);
  } catch (error) {
    if (error instanceof Uncacheable) return undefined;
    throw error;
  }
  return out.join('');
}

/** The SDK's `toJsonSchemaCompat(schema, opts)`. */
export type JsonSchemaConverter = (schema: never, opts?: object) => unknown;

/** Converted schemas by cache key: the JSON text of the JSON Schema. */
export type JsonSchemaTable = Record<string, string>;

/** Where a conversion that ran is recorded (by key, as JSON text): the build fills its table from it. */
export const CAPTURE = Symbol.for('@mcpkit/protocol-core.jsonSchemaCapture');

/**
 * `convert` with a cache in front: a zod 4 schema whose fingerprint (with the options) is in
 * `precomputed` (JSON of a `JsonSchemaTable`, parsed on first use) or was converted before in this
 * process gets a fresh copy of the earlier result; anything else goes to `convert` as before. A copy,
 * because the SDK hands the result on as its own. When `globalThis[CAPTURE]` is a `Map` (the build's
 * capture run sets one), every conversion made is recorded there.
 */
export function cachedConverter<C extends JsonSchemaConverter>(convert: C, registry: MetadataRegistry, precomputed?: string): C {
  let table: Map<string, string> | undefined;
  const load = (): Map<string, string> => {
    if (table) return table;
    const capture = (globalThis as { [CAPTURE]?: unknown })[CAPTURE];
    table = capture instanceof Map ? (capture as Map<string, string>) : new Map();
    if (precomputed) {
      try {
        for (const [key, json] of Object.entries(JSON.parse(precomputed) as JsonSchemaTable)) if (!table.has(key)) table.set(key, json);
      } catch {
        // Not a table (an unfilled placeholder): convert everything.
      }
    }
    return table;
  };
  return ((schema: never, opts?: object) => {
    const fingerprint = schemaFingerprint(schema, registry);
    if (fingerprint === undefined) return convert(schema, opts);
    const key = `${JSON.stringify(opts ?? {})}${fingerprint}`;
    const cache = load();
    const known = cache.get(key);
    if (known !== undefined) return JSON.parse(known);
    const result = convert(schema, opts);
    const json = JSON.stringify(result);
    if (json !== undefined) cache.set(key, json);
    return result;
  }) as C;
}
