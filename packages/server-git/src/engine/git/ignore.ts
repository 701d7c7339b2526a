/**
 * Git's ignore rules for one pass over a work tree: every `.gitignore` on the way down (a deeper file
 * overrides a shallower one, the last matching line of a file decides), then `.git/info/exclude`, then
 * the user's excludes file (`core.excludesFile`, default `~/.config/git/ignore`). Patterns are
 * matched with the `ignore` package, case-sensitively as git does on Linux.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { createWorkFiles, type WorkFiles } from './workFile.js';

/** The rules in `read()`'s text, or null when it cannot be read. */
function load(read: () => string): Ignore | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  return ignore({ ignorecase: false }).add(text);
}

export class IgnoreRules {
  /** A work tree's `.gitignore` is never read through a symlink, on its way or as itself (git ignores such a file). */
  readonly #files: WorkFiles;
  readonly #perDir = new Map<string, Ignore | null>();
  readonly #global: Ignore[];

  /** `dir` is the work tree; `gitdir` holds info/exclude; `excludesFile` is the user's file (or null). */
  constructor(dir: string, gitdir: string, excludesFile: string | null) {
    this.#files = createWorkFiles(dir);
    const outside = (file: string) => () => readFileSync(file, 'utf8');
    this.#global = [load(outside(join(gitdir, 'info', 'exclude'))), excludesFile ? load(outside(excludesFile)) : null].filter(
      (i): i is Ignore => i !== null,
    );
  }

  /** Tells the rules whether directory `dirRel` ('' = top) has a `.gitignore` (saves a read when it has none). */
  enter(dirRel: string, hasGitignore: boolean): void {
    if (this.#perDir.has(dirRel)) return;
    this.#perDir.set(dirRel, hasGitignore ? this.#load(dirRel) : null);
  }

  #load(dirRel: string): Ignore | null {
    return load(() => this.#files.read(dirRel === '' ? '.gitignore' : `${dirRel}/.gitignore`).bytes.toString('utf8'));
  }

  #rulesOf(dirRel: string): Ignore | null {
    let rules = this.#perDir.get(dirRel);
    if (rules === undefined) {
      rules = this.#load(dirRel);
      this.#perDir.set(dirRel, rules);
    }
    return rules;
  }

  /**
   * Whether `rel` (a `/`-separated work-tree path) is ignored by the rules that apply to it. Parent
   * directories are not checked: callers walk down and never enter an ignored directory.
   */
  isIgnored(rel: string, isDir: boolean): boolean {
    const suffix = isDir ? '/' : '';
    let slash = rel.lastIndexOf('/');
    for (;;) {
      const base = slash < 0 ? '' : rel.slice(0, slash);
      const rules = this.#rulesOf(base);
      if (rules) {
        const result = rules.test(rel.slice(slash + 1) + suffix);
        if (result.ignored) return true;
        if (result.unignored) return false;
      }
      if (slash < 0) break;
      slash = rel.lastIndexOf('/', slash - 1);
    }
    for (const rules of this.#global) {
      const result = rules.test(rel + suffix);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  /** Whether `rel` or one of its parent directories is ignored (for a path named directly, as `git add` checks). */
  isIgnoredPath(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) if (this.isIgnored(parts.slice(0, i).join('/'), true)) return true;
    return this.isIgnored(rel, isDir);
  }
}
