#!/usr/bin/env node
// Renders each package's current bench figures into its README, from a committed source:
//
//   node tooling/scripts/bench-table.mjs            rewrite what changed
//   node tooling/scripts/bench-table.mjs --check    change nothing; exit 1 naming each README that is not current
//
// The source is docs/<package>/bench.json (the package's folder name: server-memory, protocol-core, …), the
// figures of the latest full `pnpm bench` run worth quoting, copied from its run log (docs/<package>/performance.md)
// when a run changes them:
//
//   { "command": "pnpm bench -- --only memory", "measured": "node v20.20.2, 2 shared vCPU (AMD EPYC), linux",
//     "tables": [{ "caption": "…", "columns": ["operation", "ours", "reference", "ours vs reference"],
//                  "rows": [["create_entities (1)", "0.806 ms", "64.1 ms", "80× faster"]] }],
//     "notes": ["…"] }
//
// The README gets, between `<!-- bench:start -->` and `<!-- bench:end -->` (both required once a bench.json
// exists), one line naming the command and the machine, each table, the notes, and a link to the run log. Plain
// Node, no dependencies; check-readmes.mjs runs the check.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

/** Problems with a bench.json's content (an empty list when it can be rendered). */
export function validate(bench) {
  const problems = [];
  if (typeof bench?.command !== 'string' || bench.command === '') problems.push('"command" must be a non-empty string');
  if (typeof bench?.measured !== 'string' || bench.measured === '') problems.push('"measured" must be a non-empty string');
  if (!Array.isArray(bench?.tables) || bench.tables.length === 0) problems.push('"tables" must be a non-empty array');
  for (const [i, t] of (Array.isArray(bench?.tables) ? bench.tables : []).entries()) {
    if (!Array.isArray(t?.columns) || t.columns.length < 2) problems.push(`tables[${i}].columns must list at least 2 columns`);
    else if (!Array.isArray(t.rows) || t.rows.length === 0) problems.push(`tables[${i}].rows must be a non-empty array`);
    else
      for (const [j, r] of t.rows.entries())
        if (!Array.isArray(r) || r.length !== t.columns.length || r.some((c) => typeof c !== 'string'))
          problems.push(`tables[${i}].rows[${j}] must be ${t.columns.length} strings`);
  }
  if (bench?.notes !== undefined && (!Array.isArray(bench.notes) || bench.notes.some((n) => typeof n !== 'string')))
    problems.push('"notes" must be an array of strings');
  return problems;
}

const cell = (s) => s.replace(/\|/g, '\\|');
/** Columns after the first are numbers or ratios: right-aligned. */
function table({ caption, columns, rows }) {
  const out = [];
  if (caption) out.push(caption, '');
  out.push(`| ${columns.map(cell).join(' | ')} |`, `| ${columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`);
  for (const r of rows) out.push(`| ${r.map(cell).join(' | ')} |`);
  return out.join('\n');
}

/** The block between the markers (markers included), for a README at `readmeDir` and its run log `logFile`. */
export function render(bench, { readmeDir, logFile }) {
  const log = relative(readmeDir, logFile).split('\\').join('/');
  const parts = [
    START,
    '<!-- Generated from the bench.json beside the run log by `node tooling/scripts/bench-table.mjs`; edit that file, not this table. -->',
    '',
    `Current figures from \`${bench.command}\` (${bench.measured}).`,
    ...bench.tables.flatMap((t) => ['', table(t)]),
  ];
  if (bench.notes?.length) parts.push('', ...bench.notes.map((n) => `- ${n}`));
  parts.push('', `How they are measured, and every run so far: [${log.replace(/^(\.\.\/)+/, '')}](${log}).`, END);
  return parts.join('\n');
}

/** `{ name, source, readme, log }` for every docs/<package>/bench.json. */
export function sources() {
  const docs = join(root, 'docs');
  if (!existsSync(docs)) return [];
  return readdirSync(docs, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(docs, e.name, 'bench.json')))
    .map((e) => {
      const group = ['packages', 'apps'].find((g) => existsSync(join(root, g, e.name, 'package.json'))) ?? 'packages';
      return {
        name: e.name,
        source: join(docs, e.name, 'bench.json'),
        readme: join(root, group, e.name, 'README.md'),
        log: join(docs, e.name, 'performance.md'),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** `{ text, problems }`: the README with its block replaced, or the problems that prevent it. */
export function update(readmeText, block) {
  const start = readmeText.indexOf(START);
  const end = readmeText.indexOf(END);
  if (start === -1 || end === -1 || end < start || readmeText.indexOf(START, start + 1) !== -1)
    return { text: readmeText, problems: [`expected one \`${START}\` … \`${END}\` block (in its Performance section)`] };
  return { text: readmeText.slice(0, start) + block + readmeText.slice(end + END.length), problems: [] };
}

/** Runs over every source; returns the number of READMEs with problems (or, with `check`, not current). */
export function run({ check, log = console.log, error = console.error } = {}) {
  let failed = 0;
  const list = sources();
  for (const s of list) {
    const where = relative(root, s.readme);
    let bench;
    try {
      bench = JSON.parse(readFileSync(s.source, 'utf8'));
    } catch (e) {
      error(`${relative(root, s.source)}: ${e.message}`);
      failed++;
      continue;
    }
    const problems = validate(bench);
    if (!existsSync(s.readme)) problems.push(`${where} is missing`);
    if (!existsSync(s.log)) problems.push(`${relative(root, s.log)} (the run log the table links to) is missing`);
    if (problems.length) {
      for (const p of problems) error(`${relative(root, s.source)}: ${p}`);
      failed++;
      continue;
    }
    const before = readFileSync(s.readme, 'utf8');
    const { text, problems: markers } = update(before, render(bench, { readmeDir: dirname(s.readme), logFile: s.log }));
    if (markers.length) {
      for (const p of markers) error(`${where}: ${p}`);
      failed++;
    } else if (text !== before) {
      if (check) {
        error(`${where}: its bench table is not what ${relative(root, s.source)} gives (run node tooling/scripts/bench-table.mjs)`);
        failed++;
      } else {
        writeFileSync(s.readme, text);
        log(`[bench-table] ${where}: table rewritten from ${relative(root, s.source)}`);
      }
    }
  }
  if (failed === 0) log(`[bench-table] OK: ${list.length} READMEs show their bench.json figures`);
  return failed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--check');
  if (unknown.length) {
    console.error(`bench-table: unknown argument ${unknown[0]} (usage: node tooling/scripts/bench-table.mjs [--check])`);
    process.exit(2);
  }
  if (run({ check: args.includes('--check') }) > 0) process.exit(1);
}
