/**
 * What would stop isomorphic-git half-way through writing files: a folder (holding untracked files)
 * where a file or symlink is to be written, or a file where a folder is needed. isomorphic-git writes
 * the files it can and then fails, so the tools that update the work tree look first and refuse
 * before anything is written, as git does ("would be overwritten", "would lose untracked files").
 */
import type { Repo } from '../repo.js';

/** True when every file under the folder `path` is one of `paths` (it is emptied by the same update). */
async function onlyListed(repo: Repo, path: string, paths: ReadonlySet<string>): Promise<boolean> {
  const fsp = repo.git.fs.promises;
  const names = (await fsp.readdir(`${repo.dir}/${path}`).catch(() => [])) as string[];
  for (const name of names) {
    const child = `${path}/${name}`;
    if (paths.has(child)) continue;
    const stat = await fsp.lstat(`${repo.dir}/${child}`).catch(() => null);
    if (!stat?.isDirectory() || !(await onlyListed(repo, child, paths))) return false;
  }
  return true;
}

/** `paths` (to be written as files or links, or removed) that the work tree blocks, with the reason. */
export async function blockedPaths(repo: Repo, list: Iterable<string>): Promise<string[]> {
  const fsp = repo.git.fs.promises;
  const paths = new Set(list);
  const kind = new Map<string, 'dir' | 'other' | 'none'>();
  const lookup = async (path: string) => {
    let k = kind.get(path);
    if (k === undefined) {
      const stat = await fsp.lstat(`${repo.dir}/${path}`).catch(() => null);
      k = stat === null ? 'none' : stat.isDirectory() ? 'dir' : 'other';
      kind.set(path, k);
    }
    return k;
  };
  const out: string[] = [];
  for (const path of paths) {
    if ((await lookup(path)) === 'dir') {
      if (!(await onlyListed(repo, path, paths))) out.push(`${path} (a folder holding untracked files is in the way)`);
      continue;
    }
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      const k = await lookup(parent);
      if (k === 'none' || paths.has(parent)) break;
      if (k === 'other') {
        out.push(`${path} (${parent} is a file or symlink, not a folder)`);
        break;
      }
    }
  }
  return out.sort();
}
