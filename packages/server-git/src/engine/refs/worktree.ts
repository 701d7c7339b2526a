/**
 * What checkout, merge and stash need to know about local changes, and writing flat file lists
 * back as trees. Built on isomorphic-git's statusMatrix and walk.
 */
import git from 'isomorphic-git';
import { readBlobBytes } from '../git/objectRead.js';
import type { Repo } from '../repo.js';

export interface LocalChanges {
  /** Paths whose index entry differs from HEAD (added, modified, deleted in the index). */
  staged: string[];
  /** Tracked paths whose work-tree file differs from the index (modified or deleted). */
  unstaged: string[];
  /** Untracked, not ignored files. */
  untracked: string[];
}

/** HEAD ⟷ index ⟷ work tree, as `git status` sees it. */
export async function localChanges(repo: Repo): Promise<LocalChanges> {
  const rows = await git.statusMatrix({ ...repo.git });
  const out: LocalChanges = { staged: [], unstaged: [], untracked: [] };
  for (const [path, head, workdir, stage] of rows) {
    if (head === 0 && stage === 0) {
      if (workdir !== 0) out.untracked.push(path);
      continue;
    }
    // stage: 0 absent, 1 = HEAD, 2 = work tree, 3 = neither.
    const stagedChange = head === 1 ? stage !== 1 : stage !== 0;
    if (stagedChange) out.staged.push(path);
    const indexMatchesWorkdir = stage === 2 || (stage === 1 && workdir === 1);
    if (stage !== 0 && !indexMatchesWorkdir) out.unstaged.push(path);
  }
  return out;
}

export interface FlatEntry {
  oid: string;
  mode: number;
}

/** Every file of a tree (recursively) as path → blob/gitlink. */
export async function flatTree(repo: Repo, treeOrCommit: string): Promise<Map<string, FlatEntry>> {
  const out = new Map<string, FlatEntry>();
  await git.walk({
    ...repo.git,
    trees: [git.TREE({ ref: treeOrCommit })],
    map: async (path, [entry]) => {
      if (!entry || path === '.') return undefined;
      const type = await entry.type();
      if (type === 'tree') return undefined;
      out.set(path, { oid: await entry.oid(), mode: await entry.mode() });
      return undefined;
    },
  });
  return out;
}

/** File paths whose blob (or mode) differs between two trees or commits; equal subtrees are skipped. */
export async function changedPaths(repo: Repo, a: string, b: string): Promise<Set<string>> {
  const out = new Set<string>();
  await git.walk({
    ...repo.git,
    trees: [git.TREE({ ref: a }), git.TREE({ ref: b })],
    map: async (path, [x, y]) => {
      if (path === '.') return undefined;
      const [tx, ty] = [x ? await x.type() : null, y ? await y.type() : null];
      if (tx === 'tree' && ty === 'tree') return (await x!.oid()) === (await y!.oid()) ? null : undefined;
      if (tx !== 'tree' && ty !== 'tree') {
        if (!x || !y || (await x.oid()) !== (await y.oid()) || (await x.mode()) !== (await y.mode())) out.add(path);
        return undefined;
      }
      // A file on one side, a folder on the other: the file changes, and so does everything under the folder.
      if (tx !== null && tx !== 'tree') out.add(path);
      if (ty !== null && ty !== 'tree') out.add(path);
      return undefined;
    },
  });
  // Folders that turned into files (or back) list their files through the walk of the tree side.
  return out;
}

/** Writes path → entry as nested tree objects and returns the root tree oid. */
export async function writeFlatTree(repo: Repo, files: Map<string, FlatEntry>): Promise<string> {
  interface Dir {
    files: Map<string, FlatEntry>;
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, entry] of files) {
    const parts = path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) {
        next = { files: new Map(), dirs: new Map() };
        dir.dirs.set(part, next);
      }
      dir = next;
    }
    dir.files.set(parts[parts.length - 1]!, entry);
  }
  const write = async (dir: Dir): Promise<string> => {
    const tree: { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }[] = [];
    for (const [name, sub] of dir.dirs) tree.push({ mode: '040000', path: name, oid: await write(sub), type: 'tree' });
    for (const [name, e] of dir.files) {
      tree.push({ mode: e.mode.toString(8).padStart(6, '0'), path: name, oid: e.oid, type: e.mode === 0o160000 ? 'commit' : 'blob' });
    }
    return git.writeTree({ ...repo.git, tree });
  };
  return write(root);
}

/** The index's stage-0 entries as path → entry. */
export async function indexEntries(repo: Repo): Promise<Map<string, FlatEntry>> {
  const out = new Map<string, FlatEntry>();
  await git.walk({
    ...repo.git,
    trees: [git.STAGE()],
    map: async (path, [entry]) => {
      if (!entry || path === '.') return undefined;
      if ((await entry.type()) === 'tree') return undefined;
      out.set(path, { oid: await entry.oid(), mode: await entry.mode() });
      return undefined;
    },
  });
  return out;
}

/** A work-tree file written as a blob (symlinks as their target): its entry, or null when it is gone. */
export async function workFileEntry(repo: Repo, path: string): Promise<FlatEntry | null> {
  const full = `${repo.dir}/${path}`;
  const fsp = repo.git.fs.promises;
  let stat: Awaited<ReturnType<typeof fsp.lstat>>;
  try {
    stat = await fsp.lstat(full);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink()) {
    const target = await fsp.readlink(full);
    return { oid: await git.writeBlob({ ...repo.git, blob: Buffer.from(target) }), mode: 0o120000 };
  }
  if (!stat.isFile()) return null;
  const blob = await fsp.readFile(full);
  return { oid: await git.writeBlob({ ...repo.git, blob }), mode: stat.mode & 0o111 ? 0o100755 : 0o100644 };
}

/** Writes a blob to the work tree at `path` (creating folders, honouring the mode), or removes the file. */
export async function writeWorkFile(repo: Repo, path: string, entry: FlatEntry | null): Promise<void> {
  const fsp = repo.git.fs.promises;
  const full = `${repo.dir}/${path}`;
  await fsp.rm(full, { force: true });
  if (entry === null) return;
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    await fsp.mkdir(`${repo.dir}/${parts.slice(0, i).join('/')}`).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }
  const { blob } = { blob: await readBlobBytes(repo, entry.oid) };
  if (entry.mode === 0o120000) await fsp.symlink(Buffer.from(blob).toString(), full);
  else await fsp.writeFile(full, blob, { mode: entry.mode === 0o100755 ? 0o755 : 0o644 });
}
