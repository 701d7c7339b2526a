/** `git_add` (its definition: ../../tools/gitAdd.ts). */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveWorkPath } from '../confine.js';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { configBool, excludesFile, repoConfig } from '../git/gitConfig.js';
import { IgnoreRules } from '../git/ignore.js';
import type { IndexEntry } from '../git/indexFile.js';
import { type HeldIndex, withIndexLock } from '../git/indexLock.js';
import { comparePaths } from '../git/paths.js';
import { entryFromWorktree, under } from '../git/stage.js';
import { untrackedUnder } from '../git/untracked.js';
import { worktreeState } from '../git/worktreeState.js';
import type { Repo } from '../repo.js';

/** The reference's error for a failed `git add -- <files…>` (GitPython's GitCommandError text). */
function gitAddError(files: readonly string[], code: number, stderr: string): GitError {
  return new GitError(
    'GIT_COMMAND_FAILED',
    `Cmd('git') failed due to: exit code(${code})\n  cmdline: git add -- ${files.join(' ')}\n  stderr: '${stderr}'`,
  );
}

/** What `git add -- <files…>` staged: new content, and deletions. */
export interface AddData {
  staged: string[];
  removed: string[];
}

export async function add(repo: Repo, files: readonly string[], ctx: GitContext): Promise<AddData> {
  // 1. Every argument is confined first: one refusal and nothing is touched.
  const specs: string[] = [];
  for (const file of files) specs.push(await resolveWorkPath(repo, file));
  // 2-3 under the index lock: the index read there is the one the new entries replace (git add's order).
  return withIndexLock(repo, (held) => stage(repo, files, specs, held, ctx));
}

async function stage(repo: Repo, files: readonly string[], specs: readonly string[], held: HeldIndex, ctx: GitContext): Promise<AddData> {
  const index = held.index;
  const excludes = excludesFile(repo, { env: ctx.env, home: ctx.home });
  const rules = new IgnoreRules(repo.dir, repo.gitdir, excludes);
  const fileMode = configBool(repoConfig(repo).get('core.filemode')?.at(-1), true);
  const work = await worktreeState(repo, { untracked: false });
  const isTracked = (spec: string) =>
    spec === '' || index.paths.has(spec) || index.dirs.has(spec) || index.files.get(spec)?.mode === 0o160000;

  // 2. What each pathspec selects; missing and ignored paths fail as `git add` does, before any write.
  const toStage = new Set<string>();
  const missing: string[] = [];
  const ignored: string[] = [];
  const nested: string[] = [];
  specs.forEach((spec, i) => {
    const st = spec === '' ? null : repo.work.lstat(spec);
    // `linked/` names the folder a symlink points to: git refuses it ("beyond a symbolic link").
    if (st?.isSymbolicLink() && /[/\\]\.?$/.test(files[i]!)) {
      throw gitAddError(files, 128, `fatal: pathspec '${files[i]}' is beyond a symbolic link`);
    }
    if (spec !== '' && st === null && !isTracked(spec)) {
      missing.push(files[i]!);
      return;
    }
    if (spec !== '' && !isTracked(spec) && rules.isIgnoredPath(spec, st?.isDirectory() === true)) {
      ignored.push(spec);
      return;
    }
    for (const path of work.changed.keys()) if (under(path, spec)) toStage.add(path);
    for (const path of index.unmerged.keys()) if (under(path, spec)) toStage.add(path);
    if (spec === '' || st?.isDirectory()) {
      if (spec !== '' && !index.dirs.has(spec) && existsSync(join(repo.dir, spec, '.git'))) {
        nested.push(files[i]!);
        return;
      }
      // Untracked files under the folder (not in an ignored one; nested repositories, `dir/`, are left out).
      if (spec === '' || !rules.isIgnoredPath(spec, true)) {
        for (const path of untrackedUnder(repo, spec, excludes)) if (!path.endsWith('/')) toStage.add(path);
      }
    } else if (st !== null && !index.paths.has(spec)) {
      toStage.add(spec);
    }
  });
  if (missing.length) throw gitAddError(files, 128, `fatal: pathspec '${missing[0]}' did not match any files`);
  if (nested.length) {
    throw new GitError(
      'UNSUPPORTED',
      `'${nested[0]}' is a separate git repository inside this one; this server does not add repositories as submodules (gitlinks). Nothing was staged.`,
    );
  }
  if (ignored.length) {
    throw gitAddError(
      files,
      1,
      `The following paths are ignored by one of your .gitignore files:\n${ignored.join('\n')}\nhint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: "git config advice.addIgnoredFile false"`,
    );
  }

  // 3. New index: staged paths replace their entries (all stages); a file replaces a folder and vice versa.
  const staged: string[] = [];
  const removed: string[] = [];
  const replacements = new Map<string, IndexEntry | null>();
  const current = new Map(index.parsed.entries.filter((e) => e.stage === 0).map((e) => [e.path, e]));
  for (const path of [...toStage].sort(comparePaths)) {
    const previous = current.get(path);
    // Through the call's WorkTree: a path behind a symlinked folder is absent (its deletion is staged), never read.
    const st = repo.work.lstat(path);
    const entry = st && (st.isFile() || st.isSymbolicLink()) ? await entryFromWorktree(repo, path, fileMode, previous) : null;
    replacements.set(path, entry);
    if (entry) staged.push(path);
    else removed.push(path);
  }
  if (replacements.size > 0) {
    const added = new Set([...replacements.entries()].filter(([, e]) => e !== null).map(([p]) => p));
    const addedDirs = new Set<string>();
    for (const path of added) for (let s = path.indexOf('/'); s > 0; s = path.indexOf('/', s + 1)) addedDirs.add(path.slice(0, s));
    // A staged file replaces entries under a folder of its name, a staged folder's files replace a file.
    const conflicts = (path: string) => {
      if (addedDirs.has(path)) return true;
      for (let s = path.indexOf('/'); s > 0; s = path.indexOf('/', s + 1)) if (added.has(path.slice(0, s))) return true;
      return false;
    };
    const entries: IndexEntry[] = index.parsed.entries.filter((e) => !replacements.has(e.path) && !conflicts(e.path));
    for (const entry of replacements.values()) if (entry) entries.push(entry);
    held.write(entries);
  }
  return { staged, removed };
}
