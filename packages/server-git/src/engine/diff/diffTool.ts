/** What git_diff_unstaged, git_diff_staged and git_diff share: inputs, the files as data, paging, rendering. */
import { createHash } from 'node:crypto';
import { resolveWorkPath } from '../confine.js';
import type { Repo } from '../repo.js';
import { createAbbreviator } from './abbrev.js';
import { comparePairs, renderPatches, type Snapshot } from './changes.js';
import { cursorFingerprint, DEFAULT_MAX_BYTES, fingerprint, type Paged, pageBytes } from './paging.js';
import type { FilePatch } from './patch.js';
import type { CachedPatch, FileData, PatchCache } from './patchCache.js';

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
async function confinePaths(repo: Repo, paths: readonly string[] | undefined): Promise<string[] | undefined> {
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

/** One page of git diff's output (without its last newline), and the files that start on it. */
export interface DiffPage {
  files: FileData[];
  page: Paged;
}

/**
 * What the two sides hold (path, blob, mode of each file they have: ./sides.ts gives them the paths that
 * differ only, which is all the patch depends on): equal only for the same patch input.
 */
function stateKey(from: Snapshot, to: Snapshot): string {
  const hash = createHash('sha1');
  for (const side of [from, to]) {
    for (const [path, e] of side) hash.update(`${path}\0${e.oid}\0${e.mode}\n`);
    hash.update('\0\0');
  }
  return hash.digest('hex');
}

/** The patch from `from` to `to`, paged; `title` names it in the patch cache. */
export async function diffPage(
  repo: Repo,
  title: string,
  from: Snapshot,
  to: Snapshot,
  args: DiffArgs,
  cache?: PatchCache,
): Promise<DiffPage> {
  const paths = await confinePaths(repo, args.paths);
  // The key hashes both sides' files: worked out only when the cache is asked (a cursor) or filled (a large patch).
  let key: string | undefined;
  const keyOf = () =>
    (key ??= JSON.stringify(['diff', repo.gitdir, title, args.context_lines, paths ?? null, cache ? stateKey(from, to) : '']));
  const wanted = args.cursor === undefined ? undefined : cursorFingerprint(args.cursor);
  let patch: CachedPatch | undefined = wanted === undefined || !cache ? undefined : cache.get(keyOf(), wanted);
  let fp = wanted;
  if (!patch) {
    const [pairs, abbreviator] = await Promise.all([comparePairs(from, to, { paths, renames: true }), createAbbreviator(repo)]);
    const patches = await renderPatches(pairs, args.context_lines, abbreviator);
    let whole = '';
    const starts: number[] = [];
    for (const p of patches) {
      starts.push(whole.length);
      whole += p.bytes;
    }
    if (whole.endsWith('\n')) whole = whole.slice(0, -1);
    patch = { whole, starts, files: patches.map(fileData) };
    fp = fingerprint(whole);
    if (cache && whole.length > (args.max_bytes ?? DEFAULT_MAX_BYTES)) cache.set(keyOf(), fp, patch);
  }
  const { whole, starts } = patch;
  const page = pageBytes(whole, args.max_bytes, args.cursor, fp);
  const files = patch.files.filter(
    (_, i) => starts[i]! >= page.start && (starts[i]! < page.end || (page.end === page.total && starts[i] === page.total)),
  );
  return { files, page };
}
