// The code paths the package READMEs and their docs/<package>/ pages name must be the tree's: every `src/…`,
// `test/…` or `bench/…` path in backticks resolves inside the package, every `packages/…`, `apps/…`, `tooling/…` or
// `docs/…` path from the repository root. Dated run logs (docs/*/performance.md) and stop notes keep history and
// are not checked. A `<name>` or `*` segment stands for any name and is not checked.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../lib.mjs';

const PACKAGE_PATH = /`((?:src|test|bench)\/[A-Za-z0-9_./-]+)`/g;
const ROOT_PATH = /`((?:packages|apps|tooling|docs)\/[A-Za-z0-9_./-]+)`/g;
const HISTORY = new Set(['performance.md']);

/** `{ file, dir }` for every package README and docs/<package>/ page: `dir` is the package folder its paths start in. */
export function mappedFiles(base = root) {
  const out = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(base, group)).sort()) {
      const dir = join(base, group, entry);
      if (existsSync(join(dir, 'README.md'))) out.push({ file: join(dir, 'README.md'), dir });
      const docs = join(base, 'docs', entry);
      if (!existsSync(docs)) continue;
      for (const page of readdirSync(docs).sort())
        if (page.endsWith('.md') && !HISTORY.has(page)) out.push({ file: join(docs, page), dir });
    }
  }
  return out;
}

/** Problems of one file: `line N: <path> does not exist`. */
export function pathProblems(file, dir, base = root) {
  const problems = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      for (const [pattern, from] of [
        [PACKAGE_PATH, dir],
        [ROOT_PATH, base],
      ]) {
        for (const m of line.matchAll(pattern)) {
          const path = m[1].replace(/[/.,]+$/, '');
          if (!existsSync(join(from, path)))
            problems.push(`line ${i + 1}: \`${path}\` does not exist in ${relative(base, from) || 'the repository'}`);
        }
      }
    });
  return problems;
}
