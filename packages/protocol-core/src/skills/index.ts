/**
 * Skills (SEP-2640, `io.modelcontextprotocol/skills`) for an mcpkit server, on the SDK's `ext/skills`: a server
 * declares its folder once and attaches it in its factory, in one line:
 *
 * ```ts
 * const SKILLS = serverSkills(new URL('../skills/', import.meta.url), { prefix: 'memory' });
 * // in createXServer(…, context):
 * SKILLS.attach(server, context);
 * ```
 *
 * Attached to servers of the 2026-07-28 era only (`context.era === 'modern'`): there the SDK declares the
 * extension in `server/discover`, answers `skills/list`, `skills/get` (and `resources/directory/read` if asked), and serves
 * the files as `skill://…` resources (listed in `resources/list`, read with `resources/read`). A 2025 session, or
 * a server made without a context, sees exactly what it saw before: no extension, no extra resources.
 *
 * The SDK's extension is loaded only for a 2026-07-28 server (./support.ts): the runners and the testing kit
 * await `loadSkillsSupport()` before they build one; `attach` on a 2026-07-28 context throws until it is loaded.
 */
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { Skill, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { type Logger, silentLogger } from '../logger.js';
import type { LoadedSkills } from './catalog.js';
import { loadSkillsSupport, type SkillsSupport, skillsSupport } from './support.js';

export interface ServerSkillsOptions {
  /** The URI authority: `memory` serves `skill://memory/<skill>/SKILL.md`. Lowercase letters, digits, hyphens. */
  prefix: string;
  /** Where the SDK's warnings about a skill go (default: nowhere; the skills are checked by the package's tests). */
  logger?: Logger;
  /**
   * Also answer `resources/directory/read` on the skill folders (declared as `directoryRead: true`). Default false:
   * the conformance suite expects a declaring server's skill folder to hold a subfolder.
   */
  directoryRead?: boolean;
}

export interface ServerSkills {
  /** Serves the skills on `server` when `context` is a 2026-07-28 one (call before connecting); returns `server`. */
  attach(server: McpServer, context: McpRequestContext | undefined): McpServer;
  /** The entries as `skills/list` sends them (loads the folder if no request did yet). */
  entries(): Promise<readonly Skill[]>;
}

const PREFIX = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The skills in `root` (a folder of skill folders, each with a `SKILL.md`), read on first use. No I/O here. */
export function serverSkills(root: URL, { prefix, logger = silentLogger, directoryRead = false }: ServerSkillsOptions): ServerSkills {
  if (!PREFIX.test(prefix))
    throw new TypeError(`skills prefix must be lowercase letters, digits and hyphens (got ${JSON.stringify(prefix)})`);
  let load: Promise<LoadedSkills> | undefined;
  const loaded = (support: SkillsSupport) => {
    load ??= support.catalog.loadSkills(root, prefix).catch((error: unknown) => {
      load = undefined;
      logger.error(`skills: could not load ${root.href}: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    });
    return load;
  };
  // One extension for every server instance of the process; each attaches it to itself. Made on the first
  // 2026-07-28 server, once the SDK's extension is loaded (./support.ts).
  let extension: SkillsExtension | undefined;
  const extensionOf = (support: SkillsSupport) =>
    (extension ??= new support.sdk.SkillsExtension({
      source: support.catalog.lazySkillSource(() => loaded(support), directoryRead),
      // The files never change while the process runs (they ship with the package).
      cacheHint: { ttlMs: 3_600_000, cacheScope: 'public' },
      onWarning: (warning) => logger.warn(`skills: ${warning.path}: ${warning.message}`),
    }));
  return {
    attach(server, context) {
      if (context?.era !== 'modern') return server;
      const support = skillsSupport();
      if (!support) {
        throw new Error(
          'skills: the skills support is not loaded; await loadSkillsSupport() from @mcpkit/protocol-core/skills before building a 2026-07-28 server (the mcpkit runners and testing kit do)',
        );
      }
      extensionOf(support).attach(server);
      return server;
    },
    async entries() {
      return (await loaded(await loadSkillsSupport())).skills;
    },
  };
}

export type { Skill } from '@modelcontextprotocol/server/ext/skills';
export { loadSkillsSupport } from './support.js';
