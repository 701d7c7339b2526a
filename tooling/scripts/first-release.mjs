#!/usr/bin/env node
// The first release of a package says what the package is, not how it was built. Run by `pnpm version-packages`
// before `changeset version`: for every package still at 0.0.0 (never published), only its `<dir>-initial.md`
// changeset speaks for it; its name is taken out of every other pending changeset (a changeset left naming no
// package is deleted), so its 0.1.0 CHANGELOG is that one entry. Packages already published keep every entry.
// Unknown packages in a changeset are left alone (changesets itself reports them).
//
//   node tooling/scripts/first-release.mjs           rewrite, one line per changed file
//   node tooling/scripts/first-release.mjs --check   change nothing; list what would change; exit 0
//
// Plain Node, no dependencies: a changeset is `---\n"<name>": <bump>\n…\n---\n<summary>`.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicPackages, root } from './lib.mjs';

const checkOnly = process.argv.includes('--check');
const changesetDir = join(root, '.changeset');

/** `{ entries: [[name, bump]], summary }`, or undefined for a file that is not a changeset. */
export function parseChangeset(text) {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const entries = [];
  for (const line of m[1].split(/\r?\n/)) {
    const e = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (e) entries.push([e[1], e[2]]);
  }
  return { entries, summary: m[2] };
}

export function formatChangeset({ entries, summary }) {
  return `---\n${entries.map(([name, bump]) => `"${name}": ${bump}`).join('\n')}\n---\n${summary}`;
}

const packages = new Map(publicPackages().map((p) => [p.name, { version: p.version, initial: `${p.dir}-initial.md` }]));
const unreleased = new Set([...packages].filter(([, p]) => p.version === '0.0.0').map(([name]) => name));
let changed = 0;
for (const file of readdirSync(changesetDir).sort()) {
  if (!file.endsWith('.md') || file === 'README.md') continue;
  const path = join(changesetDir, file);
  const changeset = parseChangeset(readFileSync(path, 'utf8'));
  if (!changeset) continue;
  const keep = changeset.entries.filter(([name]) => !unreleased.has(name) || packages.get(name)?.initial === file);
  if (keep.length === changeset.entries.length) continue;
  changed += 1;
  const dropped = changeset.entries.filter((e) => !keep.includes(e)).map(([name]) => name);
  if (keep.length === 0) {
    console.log(`[first-release] ${file}: removed (it speaks only for unreleased ${dropped.join(', ')})`);
    if (!checkOnly) rmSync(path);
  } else {
    console.log(`[first-release] ${file}: no longer names unreleased ${dropped.join(', ')}`);
    if (!checkOnly) writeFileSync(path, formatChangeset({ ...changeset, entries: keep }));
  }
}
console.log(
  `[first-release] ${unreleased.size} unreleased package(s): their first CHANGELOG entry is their initial changeset; ${changed} changeset(s) ${checkOnly ? 'would change' : 'changed'}`,
);
