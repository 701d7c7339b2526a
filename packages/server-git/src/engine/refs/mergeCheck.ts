/**
 * Conflicts isomorphic-git's merge does not report as conflicts. Where both sides changed a path and
 * one made it a folder while the other made it a file or symlink, its `mergeTree` can write a tree
 * entry of mode 120000 or 100644 that points at a tree (a corrupt commit, `git fsck`: broken links);
 * two different symlinks, or a symlink against a file, would be merged line by line. git stops with
 * `CONFLICT (file/directory)` / `CONFLICT (content)` in those cases, so the merge tool refuses them
 * before anything is written.
 */
import git, { type WalkerEntry } from 'isomorphic-git';
import type { Repo } from '../repo.js';

type Kind = 'tree' | 'file' | 'link' | 'gitlink';

export interface KindConflict {
  path: string;
  /** git's name for it: a folder against a file or link, or two links. */
  kind: 'file/directory' | 'content';
}

async function describe(entry: WalkerEntry | null): Promise<{ kind: Kind; oid: string; mode: number } | null> {
  if (!entry) return null;
  const mode = await entry.mode();
  const type = await entry.type();
  const kind: Kind = type === 'tree' ? 'tree' : mode === 0o120000 ? 'link' : mode === 0o160000 ? 'gitlink' : 'file';
  return { kind, oid: await entry.oid(), mode };
}

const same = (a: { oid: string; mode: number } | null, b: { oid: string; mode: number } | null) =>
  a === b || (a !== null && b !== null && a.oid === b.oid && a.mode === b.mode);

/** Paths changed on both sides where the result cannot be a line merge: different kinds, or two different links/gitlinks. */
export async function kindConflicts(repo: Repo, ours: string, base: string, theirs: string): Promise<KindConflict[]> {
  const out: KindConflict[] = [];
  await git.walk({
    ...repo.git,
    trees: [git.TREE({ ref: ours }), git.TREE({ ref: base }), git.TREE({ ref: theirs })],
    map: async (path, [o, b, t]) => {
      if (path === '.') return undefined;
      const [x, y, z] = await Promise.all([describe(o ?? null), describe(b ?? null), describe(t ?? null)]);
      // Unchanged on one side, or the same change on both: the other side's version is taken as a whole.
      if (same(x, y) || same(z, y) || same(x, z)) return null;
      if (x === null || z === null) return x?.kind === 'tree' || z?.kind === 'tree' ? undefined : null;
      if (x.kind !== z.kind && (x.kind === 'tree' || z.kind === 'tree')) {
        out.push({ path, kind: 'file/directory' });
        return null;
      }
      if (x.kind !== z.kind || x.kind === 'link' || x.kind === 'gitlink') {
        out.push({ path, kind: 'content' });
        return null;
      }
      return undefined;
    },
  });
  return out;
}
