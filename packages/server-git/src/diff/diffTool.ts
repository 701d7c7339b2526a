/** What git_diff_unstaged, git_diff_staged and git_diff share: inputs, output shape, paging, rendering. */
import { structuredResult } from '@mcpkit/protocol-core';
import type { z } from 'zod';
import { resolveWorkPath } from '../confine.js';
import type { Repo } from '../repo.js';
import type { fileSchema } from '../tools/diffSchemas.js';
import { createAbbreviator } from './abbrev.js';
import { comparePairs, renderPatches, type Snapshot } from './changes.js';
import { pageBytes, truncationNotice } from './paging.js';
import type { FilePatch } from './patch.js';

export type FileData = z.infer<typeof fileSchema>;

export function fileData(p: FilePatch): FileData {
  return {
    path: p.path,
    ...(p.old_path !== undefined ? { old_path: p.old_path } : {}),
    status: p.status,
    binary: p.binary,
    additions: p.additions,
    deletions: p.deletions,
    hunks: p.hunks,
  };
}

/** Pathspecs confined to the work tree ('' = everything). */
export async function confinePaths(repo: Repo, paths: readonly string[] | undefined): Promise<string[] | undefined> {
  if (!paths || paths.length === 0) return undefined;
  const out: string[] = [];
  for (const p of paths) out.push(await resolveWorkPath(repo, p));
  return out;
}

export interface DiffArgs {
  context_lines: number;
  paths?: string[] | undefined;
  max_bytes?: number | undefined;
  cursor?: string | undefined;
}

/** `<title>:\n<git diff output without its last newline>`, paged, with the files as data. */
export async function diffResult(repo: Repo, title: string, from: Snapshot, to: Snapshot, args: DiffArgs) {
  const paths = await confinePaths(repo, args.paths);
  const [pairs, abbreviator] = await Promise.all([comparePairs(from, to, { paths, renames: true }), createAbbreviator(repo)]);
  const patches = await renderPatches(pairs, args.context_lines, abbreviator);
  let whole = '';
  const starts: number[] = [];
  for (const p of patches) {
    starts.push(whole.length);
    whole += p.bytes;
  }
  if (whole.endsWith('\n')) whole = whole.slice(0, -1);
  const page = pageBytes(whole, args.max_bytes, args.cursor);
  const files = patches.filter(
    (_, i) => starts[i]! >= page.start && (starts[i]! < page.end || (page.end === page.total && starts[i] === page.total)),
  );
  const heading = page.start === 0 ? `${title}:\n` : `${title} (continued):\n`;
  const text = heading + page.text + (page.truncated ? truncationNotice(page) : '');
  return structuredResult(
    { files: files.map(fileData), truncated: page.truncated, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) },
    text,
  );
}
