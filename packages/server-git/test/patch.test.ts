/**
 * The patch engine against `git diff`, byte for byte: hand-picked cases (newlines, CRLF, empty files,
 * binary, modes, function names, hunk merging, sliding) and random edits, at several context sizes, plus
 * real history when the hono fixture bundle is present.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffLines, splitLines } from '../src/engine/diff/lineDiff.js';
import { type DiffSide, formatFilePatch, trimCommonTail } from '../src/engine/diff/patch.js';
import { gitRepo, hasGit, honoBundle, tempDir, write } from './helpers.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const body = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);

/** old → new content per file; null = absent. */
const cases: Record<string, [string | Buffer | null, string | Buffer | null]> = {
  'modify-middle.txt': [lines(...body(20)), lines(...body(9), 'changed', ...body(20).slice(10))],
  'append.txt': [lines(...body(5)), lines(...body(6))],
  'prepend.txt': [lines(...body(5)), lines('zero', ...body(5))],
  'add-newline-at-eof.txt': ['a\nb', 'a\nb\n'],
  'remove-newline-at-eof.txt': ['a\nb\n', 'a\nb'],
  'no-newline-both.txt': ['a\nb\nc', 'a\nB\nc'],
  'from-empty.txt': ['', 'now\nsomething\n'],
  'to-empty.txt': ['was\nsomething\n', ''],
  'crlf.txt': ['one\r\ntwo\r\nthree\r\n', 'one\r\nTWO\r\nthree\r\n'],
  'crlf-to-lf.txt': ['one\r\ntwo\r\n', 'one\ntwo\n'],
  'added.txt': [null, lines('fresh', 'file')],
  'added-empty.txt': [null, ''],
  'deleted.txt': [lines('gone', 'soon'), null],
  'deleted-empty.txt': ['', null],
  'binary.bin': [Buffer.from([1, 2, 0, 3]), Buffer.from([1, 2, 0, 4])],
  'text-to-binary.dat': ['text\n', Buffer.from([0, 1, 2])],
  'binary-added.bin': [null, Buffer.from([0, 0, 0])],
  'name with space.txt': ['x\n', 'y\n'],
  'funcname.c': [
    lines(
      '#include <stdio.h>',
      '',
      'int main(void)   ',
      '{',
      ...body(12, '\tstep'),
      '}',
      '',
      'static void helper(void)',
      '{',
      ...body(12, '\tdo'),
      '}',
    ),
    lines(
      '#include <stdio.h>',
      '',
      'int main(void)   ',
      '{',
      ...body(5, '\tstep'),
      '\tnew step',
      ...body(12, '\tstep').slice(5),
      '}',
      '',
      'static void helper(void)',
      '{',
      ...body(8, '\tdo'),
      ...body(12, '\tdo').slice(9),
      '}',
    ),
  ],
  'long-funcname.txt': [
    lines(`function ${'x'.repeat(100)}(a, b)`, ...body(10)),
    lines(`function ${'x'.repeat(100)}(a, b)`, ...body(6), 'edit', ...body(10).slice(7)),
  ],
  'utf8-funcname.txt': [
    lines('fonction_déjà_vue_très_longue_avec_beaucoup_de_caractères_accentués_éèàùç_éèàùç_é()', ...body(8)),
    lines('fonction_déjà_vue_très_longue_avec_beaucoup_de_caractères_accentués_éèàùç_éèàùç_é()', ...body(5), 'x', ...body(8).slice(6)),
  ],
  // Two changes 6 lines apart share a hunk at -U3 (gap <= 2*context), 7 apart do not.
  'merge-6.txt': [lines(...body(30)), lines(...body(30).map((l, i) => (i === 5 || i === 12 ? `${l}!` : l)))],
  'merge-7.txt': [lines(...body(30)), lines(...body(30).map((l, i) => (i === 5 || i === 13 ? `${l}!` : l)))],
  // Sliding: a block inserted between similar blocks (the indent heuristic picks where it goes).
  'slide.js': [
    lines('function a() {', '  one();', '}', '', 'function c() {', '  three();', '}'),
    lines('function a() {', '  one();', '}', '', 'function b() {', '  two();', '}', '', 'function c() {', '  three();', '}'),
  ],
  'slide-blank.py': [
    lines('def f():', '    pass', '', '', 'def g():', '    pass'),
    lines('def f():', '    pass', '', '', 'def h():', '    pass', '', '', 'def g():', '    pass'),
  ],
  'repeats.txt': [lines('a', 'b', 'a', 'b', 'a', 'b', 'c'), lines('a', 'b', 'c', 'a', 'b', 'a', 'b', 'c')],
  'all-changed.txt': [lines(...body(8, 'old')), lines(...body(5, 'new'))],
};

/** Deterministic pseudo-random numbers. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomCase(seed: number): [string, string] {
  const r = rng(seed);
  const alphabet = ['{', '}', '', 'return x;', '  a();', '  b();', 'int f()', '\tc();', '// note', 'x = 1;'];
  const n = 5 + Math.floor(r() * 60);
  const old = Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]!);
  const next = [...old];
  const edits = 1 + Math.floor(r() * 6);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(r() * (next.length + 1));
    const kind = r();
    if (kind < 0.35)
      next.splice(at, 0, ...Array.from({ length: 1 + Math.floor(r() * 4) }, () => alphabet[Math.floor(r() * alphabet.length)]!));
    else if (kind < 0.7) next.splice(at, 1 + Math.floor(r() * 4));
    else next[at] = `changed ${e}`;
  }
  const eol = (l: string[]) => (l.length === 0 ? '' : `${l.join('\n')}${r() < 0.15 ? '' : '\n'}`);
  return [eol(old), eol(next)];
}
for (let i = 0; i < 80; i++) {
  const [a, b] = randomCase(i + 1);
  cases[`random/r${String(i).padStart(2, '0')}.txt`] = [a, b];
}

function sideOf(repo: string, git: (...a: string[]) => string, path: string, spec: string): DiffSide | null {
  const ls = spec === 'index' ? git('ls-files', '-s', '--', path).trim() : git('ls-tree', spec, '--', path).trim();
  if (!ls) return null;
  const [mode, a, b] = ls.split(/\s+/);
  const oid = spec === 'index' ? a : b;
  const data = execFileSync('git', ['cat-file', 'blob', oid!], { cwd: repo });
  return { path, oid: oid!, mode: Number.parseInt(mode!, 8), data };
}

describe('patch engine vs git diff', () => {
  it.skipIf(!hasGit)(
    'prints what git diff --cached prints, at -U0, -U1, -U3 and -U10',
    () => {
      using fx = gitRepo();
      for (const [name, [old]] of Object.entries(cases)) if (old !== null) write(fx.repo, { [name]: old });
      write(fx.repo, { 'mode.sh': 'echo hi\n', 'mode-and-content.sh': 'echo a\n' });
      fx.git('add', '-A');
      fx.git('commit', '-q', '-m', 'old');
      for (const [name, [, next]] of Object.entries(cases)) {
        if (next === null) unlinkSync(join(fx.repo, name));
        else writeFileSync(join(fx.repo, name), next);
      }
      chmodSync(join(fx.repo, 'mode.sh'), 0o755);
      chmodSync(join(fx.repo, 'mode-and-content.sh'), 0o755);
      writeFileSync(join(fx.repo, 'mode-and-content.sh'), 'echo b\n');
      fx.git('add', '-A');
      const paths = fx.git('diff', '--cached', '--name-only', '--no-renames', '-z').split('\0').filter(Boolean);
      expect(paths.length).toBeGreaterThan(100);
      const sides = paths.map((path) => ({ old: sideOf(fx.repo, fx.git, path, 'HEAD'), new: sideOf(fx.repo, fx.git, path, 'index') }));
      for (const context of [0, 1, 3, 10]) {
        const expected = fx.git('diff', '--cached', '--no-renames', '--full-index', `-U${context}`);
        let ours = '';
        for (const pair of sides) ours += formatFilePatch(pair, { context, abbrev: (o) => o }).bytes;
        // Compare file by file first for a readable failure.
        const split = (s: string) => s.split(/^(?=diff --git )/m);
        const want = split(expected);
        const got = split(Buffer.from(ours, 'latin1').toString('utf8'));
        for (let i = 0; i < Math.max(want.length, got.length); i++) expect({ context, patch: got[i] }).toEqual({ context, patch: want[i] });
      }
    },
    120_000,
  ); // a hundred git CLI runs: minutes on a loaded 2-core machine, seconds on a quiet one

  it('splits lines keeping terminators, and trims a common tail only in whole blocks', () => {
    expect(splitLines('a\nb')).toEqual(['a\n', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(diffLines(['a\n'], ['a\n'])).toEqual([]);
    const tail = `${'x'.repeat(99)}\n`.repeat(30);
    const [a, b] = trimCommonTail(`1\n${tail}`, `2\n${tail}`);
    expect(a.length).toBeLessThan(tail.length - 1000);
    expect(a.endsWith('\n')).toBe(true);
    // No newline in the trimmed blocks: nothing can be given back up to a line end, so nothing is cut.
    expect(trimCommonTail(`1${'x'.repeat(2000)}`, `2${'x'.repeat(2000)}`)[0].length).toBe(2001);
    expect(a.startsWith('1\n')).toBe(true);
    expect(b.startsWith('2\n')).toBe(true);
  });
});

const bundle = honoBundle ?? '';

describe.skipIf(!hasGit || !honoBundle)('patch engine on real history (hono)', () => {
  it('matches git diff-tree -p for recent commits at -U3 and -U0', () => {
    using dir = tempDir();
    const repo = join(dir.path, 'hono');
    execFileSync('git', ['clone', '-q', bundle, repo], { stdio: 'ignore' });
    const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, maxBuffer: 1 << 28 });
    const commits = git('rev-list', '--no-merges', '-n', '40', 'HEAD').toString().trim().split('\n');
    let files = 0;
    for (const c of commits) {
      const raw = git('diff-tree', '-r', '--no-renames', '--no-commit-id', `${c}^`, c).toString().trim();
      for (const line of raw ? raw.split('\n') : []) {
        const [meta, path] = line.split('\t') as [string, string];
        const [m1, m2, o1, o2] = meta.slice(1).split(' ') as [string, string, string, string];
        const side = (mode: string, oid: string): DiffSide | null =>
          mode === '000000' ? null : { path, oid, mode: Number.parseInt(mode, 8), data: git('cat-file', 'blob', oid) };
        if (m1 === '160000' || m2 === '160000') continue;
        for (const context of [3, 0]) {
          const expected = git(
            'diff-tree',
            '-p',
            '--no-renames',
            `-U${context}`,
            '--no-commit-id',
            '--full-index',
            `${c}^`,
            c,
            '--',
            path,
          ).toString('latin1');
          const ours = formatFilePatch({ old: side(m1, o1), new: side(m2, o2) }, { context, abbrev: (o) => o }).bytes;
          expect({ c, path, context, ours }).toEqual({ c, path, context, ours: expected });
        }
        files++;
      }
    }
    expect(files).toBeGreaterThan(40);
    rmSync(repo, { recursive: true, force: true });
  }, 120_000);
});
