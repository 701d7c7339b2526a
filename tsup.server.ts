/**
 * Shared tsup config for mcpkit server packages: `export default serverConfig()` in a package's
 * tsup.config.ts.
 *
 * Two builds, because the bin and the library have opposite needs:
 *
 * - `dist/server.js` (+ `server.d.ts`), the library entry: deps stay external (imported from
 *   node_modules), so a user's `McpServer`, zod schemas and SDK transports are the same objects
 *   as ours. Not minified. Worker-thread entries (`workers`) are built alongside it.
 * - `dist/index.js`, the bin: ONE self-contained, minified file with everything it imports bundled
 *   (SDK, zod, @mcpkit/protocol-core from source, the package's own deps). Node then reads and
 *   compiles one file instead of resolving and loading ~150 modules, which is most of a cold
 *   start. Code the bin reaches only through `await import()` stays in the file but is not run
 *   until needed (esbuild wraps it in a lazy initializer), so rarely used paths cost only parsing.
 *   Trimmed on the way:
 *     - zod's ~50 non-English locales (about a third of zod's size): every `zod/v4/locales/*`
 *       resolves to `en`. Error messages are English as before; `z.locales.xx()` gives English.
 *     - Ajv (~200 KB, which the SDK's `Server` constructs eagerly but uses only to check
 *       elicitation replies): replaced by a stand-in that loads the SDK's own Ajv validator from
 *       node_modules on first use. The SDK stays a declared dependency, so it is always installed.
 *   A tiny loader in front (`dist/index.js`) turns on Node's compile cache where it exists
 *   (`module.enableCompileCache`, Node ≥ 22.1) before the bundle (`dist/cli.js`) is compiled;
 *   on Node 20 it is a no-op. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 *
 * The packages' `dependencies` stay as they are: the library entry imports them, and the bin's
 * lazy Ajv needs the SDK. Bundling only means the bin does not load them at start-up.
 */
import { rmSync } from 'node:fs';
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
   * then cost a cold start nothing at all. They stay plain `dependencies`. Default none.
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
 * Replace the SDK's `validation/ajv-provider.js` (Ajv + ajv-formats, ~200 KB, constructed by every
 * `Server`) with a same-named class that loads the real one via `require` the first time a
 * validator is asked for (elicitation replies only, on a server).
 */
export function lazyAjv(): EsbuildPlugin {
  const shim = `export class AjvJsonSchemaValidator {
  #args; #inner;
  constructor(...args) { this.#args = args; }
  getValidator(schema) {
    if (!this.#inner) {
      const { AjvJsonSchemaValidator: Real } = process.getBuiltinModule('node:module').createRequire(import.meta.url)('@modelcontextprotocol/sdk/validation/ajv');
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

// The bin's first file: enable the compile cache (Node ≥ 22.1) before the bundle is compiled.
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
        const { writeFile, chmod } = await import('node:fs/promises');
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
      splitting: false,
      minify,
      // Bundled CommonJS deps call require() for Node built-ins; give the ES module one.
      banner: {
        js: `import { createRequire as __mcpkitCreateRequire } from 'node:module'; const require = __mcpkitCreateRequire(import.meta.url);`,
      },
      esbuildPlugins: [zodEnglishOnly(), lazyAjv(), binLoader(outDir)],
      esbuildOptions(o) {
        // Bundle workspace packages (@mcpkit/*) from their TypeScript source: no stale dist.
        o.conditions = ['@mcpkit/source', ...(o.conditions ?? [])];
      },
    },
  ];
}
