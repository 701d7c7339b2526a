/**
 * Shared tsup config for mcpkit server packages: `export default serverConfig()` in a package's
 * tsup.config.ts.
 *
 * Two builds, because the bin and the library have opposite needs:
 *
 * - `dist/server.js` (+ `server.d.ts`), the library entry: deps stay external (imported from
 *   node_modules), so a user's `McpServer`, zod schemas and SDK transports are the same objects
 *   as ours. Not minified. Worker-thread entries (`workers`) are built alongside it.
 * - `dist/index.js` → `dist/cli.js`, the bin: self-contained and minified, with everything it imports
 *   bundled (SDK, zod, @mcpkit/protocol-core from source, the package's own deps), so Node loads a few
 *   files instead of resolving ~150 modules. Code the bin reaches only through `await import()` (the
 *   HTTP runner, tool implementations, …) goes to chunks of its own (`dist/cli-*.js`), loaded on
 *   first use: Node compiles at start-up only what start-up runs (for the git bin about a third of
 *   the code; as one file, its cold start measured ~25 ms slower). The HTTP runner is behind
 *   protocol-core's lazy `serveHttp`, so no static import reaches it.
 *   Chunks stay next to `cli.js`, so `new URL('./x.js', import.meta.url)` means the same in every one.
 *   Trimmed on the way:
 *     - zod's ~50 non-English locales (about a third of zod's size): every `zod/v4/locales/*`
 *       resolves to `en`. Error messages are English as before; `z.locales.xx()` gives English.
 *     - Ajv (~200 KB, which the SDK's `Server` constructs eagerly but uses only to check
 *       elicitation replies): replaced by a stand-in that `require`s the SDK's Ajv validator from a
 *       lazy CommonJS chunk of the bin (`dist/cli-lazy-ajv.cjs`, bundled with Ajv and ajv-formats) on
 *       first use.
 *     - zod v3 and zod-to-json-schema, which the SDK uses only for zod 3 schemas (the bin has none):
 *       stand-ins `require` them from another lazy chunk (`dist/cli-lazy-zod3.cjs`) if they are ever
 *       called.
 *     (CommonJS and `require` because the SDK calls them synchronously; an ES chunk needs `await import()`.)
 *   And the tools' JSON Schemas are precomputed: after the build, the bin is started once (per
 *   `schemaRuns` entry) and lists its tools; the conversions it made are written into the bundle,
 *   so a started bin's `tools/list` runs no `z.toJSONSchema` for them (see
 *   packages/protocol-core/src/jsonSchemaCache.ts: keyed by a fingerprint of each schema, so options
 *   that change a schema or the tool set only miss and convert as before).
 *   A tiny loader in front (`dist/index.js`, which the package's `bin` entry, a committed shim
 *   `bin/mcp-server-<name>.js`, imports) turns on Node's compile cache where it exists
 *   (`module.enableCompileCache`, Node ≥ 22.1) before the bundle (`dist/cli.js`) is compiled;
 *   on Node 20 it is a no-op. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 *
 * So the bin needs nothing from node_modules but its `external` packages: the SDK and zod are not
 * installed with it. A server package declares them as optional `peerDependencies` (with the same
 * ranges as `devDependencies` for the workspace): npm does not install optional peers, so
 * `npx -y @mcpkit/server-x` downloads the bundled bin and the few packages its library entry and
 * `external` list need (protocol-core, net, …), not the SDK's express/hono tree (~18 MB); a library
 * user installs the SDK beside it, which also makes our `McpServer` theirs (`instanceof` holds).
 * tooling/scripts/check-pack.mjs holds the bin to this (it may import only built-ins, its own files
 * and `dependencies`), measures the installed size against a budget, and uses the library entries
 * with a user's SDK.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

export interface ServerConfigOptions {
  /** The CLI entry (has the `#!/usr/bin/env node` line). Default `src/index.ts`. */
  bin?: string;
  /** The library entry (`createXServer`). Default `src/server.ts`. */
  lib?: string;
  /** Minify the bin bundle. Default true (measured: about 10 ms less cold start for the sequential-thinking bin). */
  minify?: boolean;
  /**
   * Packages to keep out of the bin bundle (each with its subpaths): native addons, packages that load
   * files next to their own, and big libraries the bin only reaches through `await import()`, which
   * then cost a cold start nothing at all. They must be plain `dependencies` (installed with the bin;
   * check-pack.mjs checks it). Default none.
   */
  external?: string[];
  /**
   * Worker-thread entries (`{ convertWorker: 'src/content/convertWorker.ts' }`), built with the library
   * into `dist/<name>.js` (dependencies external, as for the library). The library and the bin both
   * live in `dist/`, so both start a worker with `new Worker(new URL('./<name>.js', import.meta.url))`.
   * Default none.
   */
  workers?: Record<string, string>;
  /**
   * Empty `dist/` when the config is evaluated (once per tsup run, before either build starts).
   * Default true. tsup's own `clean` is off: the two builds run at the same time and would delete
   * each other's files.
   */
  clean?: boolean;
  /**
   * The bin's arguments for each run that precomputes the tools' JSON Schemas (one run per entry; each
   * lists the tools after a handshake with no client capabilities). Give the options that add tools
   * (`['--allow-init']`) to precompute those too; tools a run does not list convert at run time as
   * before. `false`: no precomputed schemas. Default `[[]]` (a start without arguments).
   */
  schemaRuns?: readonly (readonly string[])[] | false;
}

/** Resolve every non-English zod locale to `en.js`, so ~50 unused translations are not bundled. */
export function zodEnglishOnly(): EsbuildPlugin {
  return {
    name: 'mcpkit:zod-english-only',
    setup(build) {
      build.onResolve({ filter: /^\.\/[A-Za-z-]+\.js$/ }, (args) => {
        if (!/[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/.test(args.importer) || args.path === './en.js') return undefined;
        return { path: join(dirname(args.importer), 'en.js') };
      });
    },
  };
}

/**
 * The bin's lazily loaded CommonJS chunks: pieces of the SDK's dependencies that the bundle reaches only
 * through a synchronous call it rarely makes. Each is its own bundle (`dist/<file>`), `require`d from
 * the bin's code the first time it is needed, so the bin never looks anything up in node_modules for
 * them (the SDK is not installed with the bin). `source` is the chunk's entry code; `from`, the module
 * whose location resolves its imports (the SDK's own dependencies resolve as they do for the SDK).
 */
const LAZY_CJS_CHUNKS = {
  ajv: {
    file: 'cli-lazy-ajv.cjs',
    from: '@modelcontextprotocol/sdk/package.json',
    source: `module.exports = require('@modelcontextprotocol/sdk/validation/ajv');`,
  },
  zod3: {
    file: 'cli-lazy-zod3.cjs',
    from: '@modelcontextprotocol/sdk/package.json',
    source: `exports.z3 = require('zod/v3');
exports.zodToJsonSchema = require('zod-to-json-schema').zodToJsonSchema;`,
  },
} as const;

/** Code that `require`s a lazy chunk from the bin file it is bundled into (all of them live in `dist/`). */
function requireChunk(chunk: keyof typeof LAZY_CJS_CHUNKS): string {
  return `process.getBuiltinModule('node:module').createRequire(import.meta.url)(${JSON.stringify(`./${LAZY_CJS_CHUNKS[chunk].file}`)})`;
}

/**
 * Replace the SDK's `validation/ajv-provider.js` (Ajv + ajv-formats, ~200 KB, constructed by every
 * `Server`) with a same-named class that loads the real one from the bin's lazy chunk
 * (`dist/cli-lazy-ajv.cjs`) the first time a validator is asked for (elicitation replies only, on a
 * server). `getValidator` is synchronous, hence a CommonJS chunk and `require`, not `import()`.
 */
export function lazyAjv(): EsbuildPlugin {
  const shim = `export class AjvJsonSchemaValidator {
  #args; #inner;
  constructor(...args) { this.#args = args; }
  getValidator(schema) {
    if (!this.#inner) {
      const { AjvJsonSchemaValidator: Real } = ${requireChunk('ajv')};
      this.#inner = new Real(...this.#args);
    }
    return this.#inner.getValidator(schema);
  }
}
`;
  return {
    name: 'mcpkit:lazy-ajv',
    setup(build) {
      build.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, (args) =>
        /@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer) ? { path: 'ajv-provider', namespace: 'mcpkit-lazy-ajv' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'mcpkit-lazy-ajv' }, () => ({ contents: shim, loader: 'js', resolveDir: process.cwd() }));
    },
  };
}

/**
 * Replace `zod/v3` and `zod-to-json-schema` where the SDK imports them (zod-compat, the JSON Schema
 * conversion: ~75 KB the bin would compile at start-up) with stand-ins that load them from the bin's
 * lazy chunk (`dist/cli-lazy-zod3.cjs`) on first use. The SDK calls them only for zod 3 schemas, which
 * the bin never has.
 */
export function zodV3OnDemand(): EsbuildPlugin {
  const shims: Record<string, string> = {
    'zod/v3': `let zod3;
export function object(...args) {
  zod3 ??= ${requireChunk('zod3')}.z3;
  return zod3.object(...args);
}
`,
    'zod-to-json-schema': `let converter;
export function zodToJsonSchema(...args) {
  converter ??= ${requireChunk('zod3')}.zodToJsonSchema;
  return converter(...args);
}
`,
  };
  return {
    name: 'mcpkit:zod-v3-on-demand',
    setup(build) {
      build.onResolve({ filter: /^(zod\/v3|zod-to-json-schema)$/ }, (args) =>
        /@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer) ? { path: args.path, namespace: 'mcpkit-zod-v3' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'mcpkit-zod-v3' }, (args) => ({
        contents: shims[args.path],
        loader: 'js',
        resolveDir: process.cwd(),
      }));
    },
  };
}

/**
 * Builds the lazy CommonJS chunks (`LAZY_CJS_CHUNKS`) into `outDir` once the bin is built: minified
 * bundles of their own, with esbuild (the one running the bin build).
 */
function lazyCjsChunks(outDir: string, minify: boolean): EsbuildPlugin {
  return {
    name: 'mcpkit:lazy-cjs-chunks',
    setup(build) {
      build.onEnd(async (result) => {
        if (result.errors.length > 0) return;
        const require = createRequire(join(process.cwd(), 'package.json'));
        await Promise.all(
          Object.values(LAZY_CJS_CHUNKS).map(({ file, from, source }) =>
            build.esbuild.build({
              stdin: { contents: source, resolveDir: dirname(require.resolve(from)), sourcefile: file, loader: 'js' },
              bundle: true,
              format: 'cjs',
              platform: 'node',
              target: 'node20',
              minify,
              legalComments: 'inline',
              outfile: join(outDir, file),
              logLevel: 'warning',
            }),
          ),
        );
      });
    },
  };
}

/** Where the bundle's precomputed JSON Schemas go (a JSON string literal replaces it after the build). */
const SCHEMAS_PLACEHOLDER = '__MCPKIT_PRECOMPUTED_JSON_SCHEMAS__';
/** Set by the build's schema runs (a Map); see packages/protocol-core/src/jsonSchemaCache.ts. */
const SCHEMAS_CAPTURE = '@mcpkit/protocol-core.jsonSchemaCapture';
const JSON_SCHEMA_CACHE = fileURLToPath(new URL('./packages/protocol-core/src/jsonSchemaCache.ts', import.meta.url));

/**
 * Put protocol-core's `cachedConverter` in front of the SDK's `toJsonSchemaCompat` (which `McpServer`
 * runs for every tool schema on every `tools/list`), with the table `precomputeJsonSchemas` writes.
 */
export function cachedJsonSchemas(): EsbuildPlugin {
  return {
    name: 'mcpkit:cached-json-schemas',
    setup(build) {
      build.onResolve({ filter: /[\\/]zod-json-schema-compat\.js$/ }, (args) =>
        args.namespace === 'file' && /@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer)
          ? { path: join(dirname(args.importer), args.path), namespace: 'mcpkit-json-schemas' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'mcpkit-json-schemas' }, (args) => {
        const real = JSON.stringify(args.path);
        return {
          contents: `import { toJsonSchemaCompat as convert } from ${real};
import { globalRegistry } from 'zod/v4/core';
import { cachedConverter } from ${JSON.stringify(JSON_SCHEMA_CACHE)};
export * from ${real};
export const toJsonSchemaCompat = cachedConverter(convert, globalRegistry, ${JSON.stringify(SCHEMAS_PLACEHOLDER)});
`,
          loader: 'js',
          // zod resolves as it does for the SDK.
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** Starts the built bin with `args`, lists its tools, and adds the conversions it made to `table`. */
async function schemaRun(bin: string, args: readonly string[], table: Map<string, string>): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-schemas-'));
  try {
    const out = join(scratch, 'schemas.json');
    const preload = `import { writeFileSync } from 'node:fs';
const seen = new Map();
globalThis[Symbol.for(${JSON.stringify(SCHEMAS_CAPTURE)})] = seen;
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen])));`;
    // A bare environment in an empty folder (also as home): no user config, nothing written elsewhere.
    const env: Record<string, string> = { HOME: scratch, USERPROFILE: scratch, APPDATA: scratch, LOCALAPPDATA: scratch };
    for (const key of ['PATH', 'SYSTEMROOT']) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, bin, ...args], {
      cwd: scratch,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    child.stdin.on('error', () => {});
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const listed = new Promise<boolean>((resolve) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          let message: { id?: unknown; method?: unknown; result?: unknown };
          try {
            message = JSON.parse(line);
          } catch {
            continue;
          }
          if (message.method !== undefined && message.id !== undefined) {
            send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
          } else if (message.id === 1 && message.result) {
            send({ method: 'notifications/initialized' });
            send({ id: 2, method: 'tools/list' });
          } else if (message.id === 2) {
            resolve(message.result !== undefined);
          } else if (message.id === 1) {
            resolve(false);
          }
        }
      });
      void exited.then(() => resolve(false));
    });
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpkit-build', version: '0.0.0' } },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const ok = await listed;
    child.stdin.end();
    const code = await exited;
    clearTimeout(timer);
    if (!ok || code !== 0) throw new Error(`${bin} ${args.join(' ')}: no tools/list result (exit ${code}). stderr: ${stderr.trim()}`);
    for (const [key, json] of JSON.parse(readFileSync(out, 'utf8')) as [string, string][]) table.set(key, json);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * After the bin build: runs the bin once per `runs` entry and writes the JSON Schema conversions they
 * made into the bundle, where `cachedJsonSchemas` left the placeholder.
 */
async function precomputeJsonSchemas(outDir: string, runs: readonly (readonly string[])[]): Promise<void> {
  const table = new Map<string, string>();
  for (const args of runs) await schemaRun(resolve(outDir, 'index.js'), args, table);
  const quoted = JSON.stringify(SCHEMAS_PLACEHOLDER);
  const files = readdirSync(outDir).filter((f) => (f === 'cli.js' || f.startsWith('cli-')) && f.endsWith('.js'));
  const holders = files.filter((f) => readFileSync(join(outDir, f), 'utf8').includes(quoted));
  if (holders.length !== 1)
    throw new Error(`precomputed JSON Schemas: expected one bin file with the placeholder, found ${holders.length}`);
  const file = join(outDir, holders[0]!);
  const literal = JSON.stringify(JSON.stringify(Object.fromEntries(table)));
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(quoted, () => literal),
  );
}

// The bin's first built file (the package's committed `bin/<bin name>.js` shim imports it): enable the compile
// cache (Node ≥ 22.1) before the bundle is compiled.
const LOADER = `#!/usr/bin/env node
import module from 'node:module';
try { module.enableCompileCache?.(); } catch {}
await import('./cli.js');
`;

/** Writes dist/index.js (the loader) once the bin bundle is built. */
function binLoader(outDir: string): EsbuildPlugin {
  return {
    name: 'mcpkit:bin-loader',
    setup(build) {
      build.onEnd(async (result) => {
        if (result.errors.length > 0) return;
        const { writeFile, chmod, mkdir } = await import('node:fs/promises');
        // The bundle itself is written after this (and the library build may not have made dist/ yet).
        await mkdir(outDir, { recursive: true });
        const file = join(outDir, 'index.js');
        await writeFile(file, LOADER);
        await chmod(file, 0o755);
      });
    },
  };
}

/** A pattern matching every import specifier except the given packages and their subpaths. */
export function allExcept(packages: readonly string[]): RegExp {
  if (packages.length === 0) return /.*/;
  const names = packages.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  return new RegExp(`^(?!(?:${names})(?:/|$))`);
}

/** tsup configs for a server package: the library build and the bundled bin build. */
export function serverConfig(options: ServerConfigOptions = {}): Options[] {
  const {
    bin = 'src/index.ts',
    lib = 'src/server.ts',
    minify = true,
    external = [],
    workers = {},
    clean = true,
    schemaRuns = [[]],
  } = options;
  const outDir = 'dist';
  if (clean) rmSync(outDir, { recursive: true, force: true });
  const common: Options = { format: ['esm'], target: 'node20', platform: 'node', outDir, clean: false, sourcemap: false };
  return [
    {
      ...common,
      name: 'lib',
      entry: { server: lib, ...workers },
      dts: { entry: { server: lib } },
    },
    {
      ...common,
      name: 'bin',
      entry: { cli: bin },
      // Everything is bundled except `external` (tsup checks noExternal before external, so it is
      // expressed here as one pattern that matches every other import).
      noExternal: [allExcept(external)],
      // Code reached only through `await import()` goes to chunks loaded on first use (see above).
      splitting: true,
      minify,
      // Bundled CommonJS deps call require() for Node built-ins; give the ES module one.
      banner: {
        js: `import { createRequire as __mcpkitCreateRequire } from 'node:module'; const require = __mcpkitCreateRequire(import.meta.url);`,
      },
      esbuildPlugins: [
        zodEnglishOnly(),
        lazyAjv(),
        zodV3OnDemand(),
        ...(schemaRuns ? [cachedJsonSchemas()] : []),
        lazyCjsChunks(outDir, minify),
        binLoader(outDir),
      ],
      esbuildOptions(o) {
        // Bundle workspace packages (@mcpkit/*) from their TypeScript source: no stale dist.
        o.conditions = ['@mcpkit/source', ...(o.conditions ?? [])];
        // Next to cli.js (relative URLs), named apart from the library's chunks.
        o.chunkNames = 'cli-[name]-[hash]';
      },
      ...(schemaRuns ? { onSuccess: () => precomputeJsonSchemas(outDir, schemaRuns) } : {}),
    },
  ];
}
