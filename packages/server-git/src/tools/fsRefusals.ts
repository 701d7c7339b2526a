/**
 * File-system refusals as tool errors. The confined file system (../engine/git/confinedFs.ts) answers a path
 * outside the repository with EACCES, and the operating system may refuse a name (ENAMETOOLONG) or a
 * file (EACCES, EPERM): those are refusals to report, naming what was refused, not failures to hide
 * behind "failed unexpectedly". The writing tools have already put back what they wrote when this runs.
 */
import { ToolError } from '@mcpkit/protocol-core';
import { gitToolError } from './gitErrors.js';

type Handler = (args: never, ctx: never, extra: never) => unknown;

/** The ToolError for a file-system refusal, or null when `error` is something else. */
function fsRefusal(error: unknown): ToolError | null {
  const e = error as NodeJS.ErrnoException | null;
  if (typeof e !== 'object' || e === null || typeof e.code !== 'string') return null;
  const path = typeof e.path === 'string' ? e.path : undefined;
  const shown = path === undefined ? '' : ` '${path.length > 200 ? `${path.slice(0, 200)}…` : path}'`;
  // The confined fs: `EACCES: <op> outside the repository is not allowed: '<path>'` (or `beyond a symbolic link …`).
  const confined = /^EACCES: (.+ is not allowed): '/.exec(e.message);
  if (e.code === 'EACCES' && confined) {
    return new ToolError(
      `Refused by the repository confinement: ${confined[1]} (path${shown}); this server only writes inside the work tree and git directory. Nothing was changed.`,
    );
  }
  if (e.code === 'ENAMETOOLONG') {
    return new ToolError(`Refused: a file name is too long for the file system${shown ? ` (${shown.trim()})` : ''}; use a shorter name.`);
  }
  if (e.code === 'EACCES' || e.code === 'EPERM') {
    return new ToolError(`Permission denied by the file system for${shown || ' a file'}; check its permissions.`);
  }
  return null;
}

/** `tool` with its handler's engine errors (./gitErrors.ts) and file-system refusals turned into ToolErrors. */
export function withFsRefusals<T extends { handler: Handler }>(tool: T): T {
  const handler = tool.handler as (...args: unknown[]) => Promise<unknown>;
  return {
    ...tool,
    handler: async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (error) {
        throw gitToolError(error) ?? fsRefusal(error) ?? error;
      }
    },
  };
}
