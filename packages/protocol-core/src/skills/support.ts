/**
 * The SDK's skills extension (`@modelcontextprotocol/server/ext/skills`, ~60 KB with its schemas) and our catalog
 * over it, loaded once per process and only when a 2026-07-28 server is first built: a 2025 session never uses
 * skills, and evaluating them cost every server's cold start ~15 ms (the `eras` bench). Server factories are
 * synchronous, so whoever builds a 2026-07-28 server awaits `loadSkillsSupport()` first: the runners do it
 * (`forEra`), so do the testing kit's in-process connections; a library user who builds one by hand calls it too.
 * Until then nothing here imports the SDK's extension.
 */
import type { McpRequestContext } from '@modelcontextprotocol/server';

type SkillsSdk = typeof import('@modelcontextprotocol/server/ext/skills');
type SkillsCatalog = typeof import('./catalog.js');

export interface SkillsSupport {
  sdk: SkillsSdk;
  catalog: SkillsCatalog;
}

let loaded: SkillsSupport | undefined;
let loading: Promise<SkillsSupport> | undefined;

/** Loads the skills support (once; a failed load is tried again next time). */
export function loadSkillsSupport(): Promise<SkillsSupport> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= Promise.all([import('@modelcontextprotocol/server/ext/skills'), import('./catalog.js')]).then(
    ([sdk, catalog]) => (loaded = { sdk, catalog }),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The skills support if it is loaded, else undefined. */
export function skillsSupport(): SkillsSupport | undefined {
  return loaded;
}

/**
 * `build` for a server factory the SDK may await: a 2026-07-28 context gets its server once the skills support is
 * loaded (a promise the first time only), any other context at once, as before.
 */
export function forEra<T>(build: (context: McpRequestContext) => T): (context: McpRequestContext) => T | Promise<T> {
  return (context) => (context.era === 'modern' && !loaded ? loadSkillsSupport().then(() => build(context)) : build(context));
}
