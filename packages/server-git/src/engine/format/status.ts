/**
 * `git status` long format (no color, LANG=C, default hints, -unormal), as git 2.39's wt-status.c
 * prints it, from plain data.
 */

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'typechange';
export type UnmergedKind =
  | 'both deleted'
  | 'added by us'
  | 'deleted by them'
  | 'added by them'
  | 'deleted by us'
  | 'both added'
  | 'both modified';

export interface StatusView {
  /** `On branch x`, `HEAD detached at …`, … */
  headLine: string;
  /** On an unborn branch. */
  initial: boolean;
  merging: boolean;
  upstream?: { name: string; gone: boolean; ahead: number; behind: number };
  staged: { path: string; status: ChangeKind }[];
  unmerged: { path: string; status: UnmergedKind }[];
  unstaged: { path: string; status: ChangeKind }[];
  /** As listed (`dir/` for a wholly untracked folder). */
  untracked: string[];
  /** core.quotePath (default true): quote non-ASCII bytes. */
  quotePath?: boolean;
}

const LABEL: Record<ChangeKind, string> = { added: 'new file:', modified: 'modified:', deleted: 'deleted:', typechange: 'typechange:' };
const CHANGE_WIDTH = 'typechange:'.length + 1;
const UNMERGED_WIDTH = 'deleted by them:'.length + 1;

/** Stage mask (1 base, 2 ours, 4 theirs) → git's unmerged label. */
export function unmergedKind(mask: number): UnmergedKind {
  return (
    (
      {
        1: 'both deleted',
        2: 'added by us',
        3: 'deleted by them',
        4: 'added by them',
        5: 'deleted by us',
        6: 'both added',
        7: 'both modified',
      } as Record<number, UnmergedKind>
    )[mask] ?? 'both modified'
  );
}

const C_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  34: '\\"',
  92: '\\\\',
};

/** Git's quote_c_style for a path: returned as is unless it has a control char, `"`, `\` or (quotePath) a byte ≥ 0x80. */
function quotePath(path: string, quoteHigh = true): string {
  const bytes = Buffer.from(path);
  let needs = false;
  for (const b of bytes) if (b < 0x20 || b === 0x22 || b === 0x5c || b === 0x7f || (quoteHigh && b >= 0x80)) needs = true;
  if (!needs) return path;
  let out = '"';
  let run: number[] = [];
  const flush = () => {
    if (run.length) out += Buffer.from(run).toString('utf8');
    run = [];
  };
  for (const b of bytes) {
    if (C_ESCAPES[b] !== undefined) {
      flush();
      out += C_ESCAPES[b];
    } else if (b < 0x20 || b === 0x7f || (quoteHigh && b >= 0x80)) {
      flush();
      out += `\\${b.toString(8).padStart(3, '0')}`;
    } else run.push(b);
  }
  flush();
  return `${out}"`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function trackingLines(up: NonNullable<StatusView['upstream']>): string[] {
  if (up.gone) return [`Your branch is based on '${up.name}', but the upstream is gone.`, '  (use "git branch --unset-upstream" to fixup)'];
  if (up.ahead === 0 && up.behind === 0) return [`Your branch is up to date with '${up.name}'.`];
  if (up.behind === 0)
    return [`Your branch is ahead of '${up.name}' by ${plural(up.ahead, 'commit')}.`, '  (use "git push" to publish your local commits)'];
  if (up.ahead === 0) {
    return [
      `Your branch is behind '${up.name}' by ${plural(up.behind, 'commit')}, and can be fast-forwarded.`,
      '  (use "git pull" to update your local branch)',
    ];
  }
  return [
    `Your branch and '${up.name}' have diverged,`,
    `and have ${up.ahead} and ${up.behind} different commits each, respectively.`,
    '  (use "git pull" to merge the remote branch into yours)',
  ];
}

/** The whole `git status` text, ending with a newline as git prints it. */
export function formatStatus(v: StatusView): string {
  const q = (p: string) => quotePath(p, v.quotePath !== false);
  const out: string[] = [v.headLine];
  if (!v.initial && v.upstream) out.push(...trackingLines(v.upstream), '');
  if (v.merging) {
    if (v.unmerged.length)
      out.push('You have unmerged paths.', '  (fix conflicts and run "git commit")', '  (use "git merge --abort" to abort the merge)', '');
    else out.push('All conflicts fixed but you are still merging.', '  (use "git commit" to conclude merge)', '');
  }
  if (v.initial) out.push('', 'No commits yet', '');
  if (v.staged.length) {
    out.push('Changes to be committed:');
    if (!v.merging)
      out.push(v.initial ? '  (use "git rm --cached <file>..." to unstage)' : '  (use "git restore --staged <file>..." to unstage)');
    for (const c of v.staged) out.push(`\t${LABEL[c.status].padEnd(CHANGE_WIDTH)}${q(c.path)}`);
    out.push('');
  }
  if (v.unmerged.length) {
    out.push('Unmerged paths:');
    if (!v.merging)
      out.push(v.initial ? '  (use "git rm --cached <file>..." to unstage)' : '  (use "git restore --staged <file>..." to unstage)');
    const bothDeleted = v.unmerged.some((u) => u.status === 'both deleted');
    const delMod = v.unmerged.some((u) => u.status === 'deleted by us' || u.status === 'deleted by them');
    const notDeleted = v.unmerged.some((u) => u.status !== 'both deleted');
    if (!bothDeleted)
      out.push(
        delMod ? '  (use "git add/rm <file>..." as appropriate to mark resolution)' : '  (use "git add <file>..." to mark resolution)',
      );
    else if (!delMod && !notDeleted) out.push('  (use "git rm <file>..." to mark resolution)');
    else out.push('  (use "git add/rm <file>..." as appropriate to mark resolution)');
    for (const u of v.unmerged) out.push(`\t${`${u.status}:`.padEnd(UNMERGED_WIDTH)}${q(u.path)}`);
    out.push('');
  }
  if (v.unstaged.length) {
    out.push('Changes not staged for commit:');
    out.push(
      v.unstaged.some((c) => c.status === 'deleted')
        ? '  (use "git add/rm <file>..." to update what will be committed)'
        : '  (use "git add <file>..." to update what will be committed)',
    );
    out.push('  (use "git restore <file>..." to discard changes in working directory)');
    for (const c of v.unstaged) out.push(`\t${LABEL[c.status].padEnd(CHANGE_WIDTH)}${q(c.path)}`);
    out.push('');
  }
  if (v.untracked.length) {
    out.push('Untracked files:', '  (use "git add <file>..." to include in what will be committed)');
    for (const p of v.untracked) out.push(`\t${q(p)}`);
    out.push('');
  }
  if (!v.staged.length) {
    if (v.unstaged.length || v.unmerged.length) out.push('no changes added to commit (use "git add" and/or "git commit -a")');
    else if (v.untracked.length) out.push('nothing added to commit but untracked files present (use "git add" to track)');
    else if (v.initial) out.push('nothing to commit (create/copy files and use "git add" to track)');
    else out.push('nothing to commit, working tree clean');
  }
  return `${out.join('\n')}\n`;
}
