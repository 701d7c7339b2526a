/**
 * Where this session may work: the `--repository` paths given at start-up, or, without any, the
 * client's MCP roots (asked for with `roots/list` on first use and again after
 * `notifications/roots/list_changed`; on a 2026-07-28 request, through a multi-round-trip input request,
 * see ../rootsRound.ts). With neither, nothing is allowed. Never "any path on disk".
 */
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/server';
import { GitError } from './errors.js';
import type { EngineLogger as Logger } from './logger.js';

export interface AllowedRoots {
  /** Real, absolute paths of the allowed roots; throws a GitError saying how to allow one when there are none. */
  list(): Promise<string[]>;
  /** Where the roots came from, for messages. */
  readonly source: 'repository' | 'client';
}

export const NO_ROOTS_MESSAGE =
  'No repository is allowed for this session. Start the server with --repository <path> (repeatable, or GIT_REPOSITORIES), ' +
  'or connect from a client that shares its workspace folders as MCP roots.';

/** Roots fixed at start-up (already real paths). */
export function fixedRoots(paths: readonly string[]): AllowedRoots {
  const list = [...paths];
  return { source: 'repository', list: async () => list };
}

/** The real paths of the `file:` roots that exist here; the others are skipped. */
export async function realRoots(roots: readonly { uri: string }[], logger: Logger): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    if (!root.uri.startsWith('file:')) continue;
    try {
      out.push(await realpath(fileURLToPath(root.uri)));
    } catch {
      logger.debug(`root ${root.uri} skipped: it does not exist here`);
    }
  }
  logger.debug(`client roots: ${out.join(', ') || '(none)'}`);
  return out;
}

/** Roots the client gave for one call (already real paths); none refuses the call, saying how to allow one. */
export function givenRoots(paths: readonly string[]): AllowedRoots {
  const list = [...paths];
  return {
    source: 'client',
    async list() {
      if (list.length === 0) throw new GitError('NO_ROOTS', NO_ROOTS_MESSAGE);
      return list;
    },
  };
}

/**
 * The client's roots, for one session (one `McpServer`). Non-`file:` roots and roots that do not
 * exist are skipped. A client without the `roots` capability has none.
 */
export function clientRoots(server: McpServer, logger: Logger): AllowedRoots {
  let cached: Promise<string[]> | undefined;
  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    cached = undefined;
    logger.debug('roots changed; they will be listed again on the next call');
  });
  async function load(): Promise<string[]> {
    if (!server.server.getClientCapabilities()?.roots) return [];
    const { roots } = await server.server.listRoots(undefined, { timeout: 10_000 });
    return realRoots(roots, logger);
  }
  return {
    source: 'client',
    async list() {
      cached ??= load().catch((error) => {
        cached = undefined;
        throw new GitError('NO_ROOTS', `Could not list the client's roots: ${error instanceof Error ? error.message : String(error)}`);
      });
      const roots = await cached;
      if (roots.length === 0) throw new GitError('NO_ROOTS', NO_ROOTS_MESSAGE);
      return roots;
    },
  };
}
