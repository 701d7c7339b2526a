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
 *     - Ajv (~290 KB, which the SDK's Node shims import for its default JSON Schema validator, used
 *       only for elicitation replies and `fromJsonSchema`): replaced by a stand-in that `require`s the
 *       SDK's shims from a lazy CommonJS chunk of the bin (`dist/cli-lazy-ajv.cjs`) on first use
 *       (CommonJS and `require` because the SDK calls the validator synchronously).
 *   (SDK v1 needed more: stand-ins for zod 3 and zod-to-json-schema, and a build-time table of the
 *   tools' JSON Schemas in front of `toJsonSchemaCompat`. SDK v2 has neither dependency and converts
 *   each tool's schema once per server itself, with no hook to fill from a table.)
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
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
}

/** Resolve every non-English zod locale to `en.js`, so ~50 unused translations are not bundled. */
function zodEnglishOnly(): EsbuildPlugin {
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

/** The bin's lazily loaded CommonJS chunk of the SDK's Ajv validator (`dist/cli-lazy-ajv.cjs`). */
const LAZY_AJV_FILE = 'cli-lazy-ajv.cjs';
/** The SDK's Node shims (its default JSON Schema validator, Ajv-backed, and `process`). */
const SDK_SHIMS = '@modelcontextprotocol/server/_shims';

/**
 * Replace the SDK's Node shims (`@modelcontextprotocol/server/_shims`, whose Ajv-backed default validator is
 * ~290 KB of code every server imports at start-up) with a same-shaped module whose
 * `DefaultJsonSchemaValidator` loads the real one from the bin's lazy chunk (`dist/cli-lazy-ajv.cjs`) the
 * first time a validator is asked for: elicitation replies and `fromJsonSchema` schemas only; tool
 * arguments are checked with zod. `getValidator` is synchronous, hence a CommonJS chunk and `require`.
 */
function lazyAjv(): EsbuildPlugin {
  const load = `process.getBuiltinModule('node:module').createRequire(import.meta.url)(${JSON.stringify(`./${LAZY_AJV_FILE}`)})`;
  const shim = `import process from 'node:process';
export { process };
export class DefaultJsonSchemaValidator {
  #args; #inner;
  constructor(...args) { this.#args = args; }
  getValidator(schema) {
    this.#inner ??= new (${load}.DefaultJsonSchemaValidator)(...this.#args);
    return this.#inner.getValidator(schema);
  }
}
`;
  return {
    name: 'mcpkit:lazy-ajv',
    setup(build) {
      build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: SDK_SHIMS, namespace: 'mcpkit-lazy-ajv' }));
      build.onLoad({ filter: /.*/, namespace: 'mcpkit-lazy-ajv' }, () => ({ contents: shim, loader: 'js', resolveDir: process.cwd() }));
      // The chunk: the real shims as one CommonJS bundle, built once the bin is.
      build.onEnd(async (result) => {
        if (result.errors.length > 0) return;
        const require = createRequire(join(process.cwd(), 'package.json'));
        await build.esbuild.build({
          stdin: {
            // `AjvJsonSchemaValidator` too: the name tooling/scripts/check-pack.mjs probes the chunk by.
            contents: `const shims = require(${JSON.stringify(SDK_SHIMS)});
module.exports = { ...shims, AjvJsonSchemaValidator: shims.DefaultJsonSchemaValidator };`,
            resolveDir: dirname(require.resolve('@modelcontextprotocol/server')),
            sourcefile: LAZY_AJV_FILE,
            loader: 'js',
          },
          bundle: true,
          format: 'cjs',
          platform: 'node',
          target: 'node20',
          minify: build.initialOptions.minify ?? false,
          legalComments: 'inline',
          outfile: join(build.initialOptions.outdir ?? 'dist', LAZY_AJV_FILE),
          logLevel: 'warning',
        });
      });
    },
  };
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
function allExcept(packages: readonly string[]): RegExp {
  if (packages.length === 0) return /.*/;
  const names = packages.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  return new RegExp(`^(?!(?:${names})(?:/|$))`);
}

/** tsup configs for a server package: the library build and the bundled bin build. */
export function serverConfig(options: ServerConfigOptions = {}): Options[] {
  const { bin = 'src/index.ts', lib = 'src/server.ts', minify = true, external = [], workers = {}, clean = true } = options;
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
      esbuildPlugins: [zodEnglishOnly(), lazyAjv(), binLoader(outDir)],
      // MCPKIT_METAFILE=1: also write esbuild's metafile of the bin (dist/metafile-esm.json) for a bundle
      // analysis (which modules a start-up evaluates: tooling/bench/src/bundleReport.mjs).
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: a manual switch for `npx tsup` in one package, not a turbo input.
      metafile: process.env.MCPKIT_METAFILE === '1',
      esbuildOptions(o) {
        // Bundle workspace packages (@mcpkit/*) from their TypeScript source: no stale dist.
        o.conditions = ['@mcpkit/source', ...(o.conditions ?? [])];
        // Next to cli.js (relative URLs), named apart from the library's chunks.
        o.chunkNames = 'cli-[name]-[hash]';
      },
    },
  ];
}
