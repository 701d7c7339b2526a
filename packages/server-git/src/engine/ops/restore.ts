/** `git_restore` (its definition: ../../tools/gitRestore.ts). */

import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkPath } from '../confine.js';
import { GitError } from '../errors.js';
import type { IndexEntry } from '../git/indexFile.js';
import { type HeldIndex, withIndexLock } from '../git/indexLock.js';
import { type FileEntry, headCommit, readBlob, treeFiles } from '../git/objects.js';
import { assertSafePath, comparePaths } from '../git/paths.js';
import { entryFromTree, under } from '../git/stage.js';
import type { Repo } from '../repo.js';

function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs);
  } catch {
    return null;
  }
}

/** Every folder on the way to `path` must be a real folder (created when missing), never a symlink. */
function prepareParents(repo: Repo, path: string): void {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i - 1]!;
    const rel = parts.slice(0, i).join('/');
    const abs = join(repo.dir, rel);
    const st = lstatOrNull(abs);
    if (st === null) {
      repo.work.files.mkdir(rel); // in its checked parent: never through a link swapped in after this lstat
      repo.work.changed(rel);
    } else if (st.isSymbolicLink()) throw new GitError('CONFLICT', `Cannot restore '${path}': '${part}' on its way is a symbolic link`);
    else if (!st.isDirectory()) throw new GitError('CONFLICT', `Cannot restore '${path}': '${part}' on its way is a file, not a folder`);
  }
}

/**
 * Writes a blob into the work tree as git checks it out: regular file (0644/0755 under the umask) or
 * symlink, made in the checked parent folder (workFile.ts), so a folder on the way swapped for a link
 * after prepareParents' lstats is never written through.
 */
async function writeWorktreeFile(repo: Repo, file: FileEntry): Promise<void> {
  assertSafePath(file.path);
  const abs = join(repo.dir, file.path);
  const bytes = await readBlob(repo, file.oid);
  const st = lstatOrNull(abs);
  if (st?.isDirectory()) throw new GitError('CONFLICT', `Cannot restore '${file.path}': a folder of that name is in the way`);
  repo.work.changed(file.path);
  if (file.mode === 0o120000) {
    if (st) repo.work.files.unlink(file.path);
    repo.work.files.symlink(Buffer.from(bytes).toString('utf8'), file.path);
  } else {
    repo.work.files.write(file.path, bytes, file.mode === 0o100755 ? 0o777 : 0o666); // replaces a file or link there
  }
}

export interface RestoreOptions {
  files: readonly string[];
  source?: 'HEAD' | 'index' | undefined;
  staged?: boolean | undefined;
}

/** What was restored (index entries when staged, else work-tree files) from where, and what was removed. */
export interface RestoreData {
  restored: string[];
  removed: string[];
  source: 'HEAD' | 'index';
  staged: boolean;
}

export async function restore(repo: Repo, { files, source, staged = false }: RestoreOptions): Promise<RestoreData> {
  if (staged && source === 'index')
    throw new GitError('INVALID_ARGUMENT', 'staged=true restores the index from HEAD; source "index" makes no sense there');
  const from = staged ? 'HEAD' : (source ?? 'index');
  const specs: string[] = [];
  for (const file of files) specs.push(await resolveWorkPath(repo, file));
  // Under the index lock, as git restore: the index read is the one written back (staged) or restored from.
  return withIndexLock(repo, (held) => restoreHeld(repo, { files, specs, from, staged }, held));
}

async function restoreHeld(
  repo: Repo,
  { files, specs, from, staged }: { files: readonly string[]; specs: readonly string[]; from: 'HEAD' | 'index'; staged: boolean },
  held: HeldIndex,
): Promise<RestoreData> {
  const index = held.index;
  const head = await headCommit(repo);
  if (from === 'HEAD' && head === null)
    throw new GitError('CONFLICT', 'HEAD has no commit yet (unborn branch): there is nothing to restore from');
  const sourceFiles = from === 'HEAD' ? await treeFiles(repo, head!) : index.files;

  // Validate every pathspec before changing anything.
  const selected = new Set<string>();
  specs.forEach((spec, i) => {
    let matched = false;
    for (const path of [...sourceFiles.keys(), ...index.paths]) {
      if (under(path, spec)) {
        selected.add(path);
        matched = true;
      }
    }
    if (!matched) throw new GitError('NOT_FOUND', `error: pathspec '${files[i]}' did not match any file(s) known to git`);
  });
  if (from === 'index') {
    const unmerged = [...selected].filter((p) => index.unmerged.has(p));
    if (unmerged.length) throw new GitError('CONFLICT', `error: path '${unmerged[0]}' is unmerged`);
  }
  const paths = [...selected].sort(comparePaths);
  for (const path of paths) assertSafePath(path);

  const restored: string[] = [];
  const removed: string[] = [];
  if (staged) {
    const current = new Map(index.parsed.entries.filter((e) => e.stage === 0).map((e) => [e.path, e]));
    const entries: IndexEntry[] = index.parsed.entries.filter((e) => !selected.has(e.path));
    for (const path of paths) {
      const file = sourceFiles.get(path);
      if (file) {
        entries.push(entryFromTree(file, current.get(path)));
        restored.push(path);
      } else removed.push(path);
    }
    held.write(entries);
  } else {
    for (const path of paths) {
      const file = sourceFiles.get(path);
      if (file?.mode === 0o160000) continue; // submodules are not checked out here
      if (file) {
        prepareParents(repo, path);
        await writeWorktreeFile(repo, file);
        restored.push(path);
      } else {
        // Behind a symlinked folder the file is absent (git removes nothing there): never unlink through the link.
        const st = repo.work.lstat(path);
        if (st && !st.isDirectory()) {
          repo.work.files.unlink(path);
          removed.push(path);
        }
      }
    }
  }
  return { restored, removed, source: from, staged };
}
