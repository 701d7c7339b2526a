import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import type { RestoreData } from '../engine/ops/restore.js';
import { openRepository, repoPath } from './common.js';

const gitRestoreInput = {
  repo_path: repoPath,
  files: z.array(z.string()).min(1).meta({ title: 'Files' }).describe('Files or folders to restore, relative to the top of the work tree'),
  source: z
    .enum(['HEAD', 'index'])
    .optional()
    .meta({ title: 'Source' })
    .describe('Where the content comes from: "index" (default) or "HEAD"; with staged=true only "HEAD"'),
  staged: z
    .boolean()
    .default(false)
    .meta({ title: 'Staged' })
    .describe('Restore the index entries (from HEAD) instead of the work-tree files'),
};

export const gitRestore = defineTool({
  name: 'git_restore',
  title: 'Restore files',
  description:
    'Restores files like `git restore`: work-tree files from the index (default) or from HEAD (source "HEAD"), discarding their ' +
    'unstaged changes; with staged=true, the index entries from HEAD instead (unstaging those files, work tree untouched). ' +
    'Files not in the source are removed (from the work tree, or with staged=true from the index).',
  input: gitRestoreInput,
  output: {
    restored: z.array(z.string()).describe('Paths written from the source'),
    removed: z.array(z.string()).describe('Paths removed because the source does not have them'),
    source: z.enum(['HEAD', 'index']),
    staged: z.boolean(),
  },
  // Discards work-tree (or staged) changes that exist nowhere else; running it twice changes nothing more.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const data = await (await openRepository(ctx, repo_path)).restore(options);
    return structuredResult(data, restoreText(data));
  },
});

function restoreText({ restored, removed, source, staged }: RestoreData): string {
  if (restored.length + removed.length === 0) return 'Nothing to restore';
  const where = staged
    ? restored.length === 1
      ? 'index entry'
      : 'index entries'
    : restored.length === 1
      ? 'work-tree file'
      : 'work-tree files';
  const from = source === 'HEAD' ? 'HEAD' : 'the index';
  return (
    `Restored ${restored.length} ${where} from ${from}` +
    (restored.length ? `: ${restored.join(', ')}` : '') +
    (removed.length ? `\nRemoved (not in ${from}): ${removed.join(', ')}` : '')
  );
}
