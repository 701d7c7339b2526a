/**
 * `pnpm bench` entry: runs every `src/suites/*.ts` (default export: a `Suite`) in file-name order,
 * prints each suite's tables and checks, then a summary, and writes everything to
 * `results/latest.json` (`results/latest-quick.json` for a quick pass).
 *
 *   node --expose-gc --import tsx src/main.ts [--quick] [--only <name>[,<name>...]] [--baseline <git ref>] [--list]
 *   BENCH_QUICK=1, BENCH_ONLY=<names> and BENCH_BASELINE=<ref> do the same as the flags.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_BASELINE } from './baseline.js';
import { type BenchCheck, type BenchContext, type BenchTable, benchDir, repoRoot, type Suite, table, withTimeout } from './harness.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    list: { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
  allowPositionals: false,
});

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
const quick = values.quick || truthy(process.env.BENCH_QUICK);
const filter = [...(values.only ?? []), ...(process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : [])]
  .flatMap((s) => s.split(','))
  .map((s) => s.trim())
  .filter(Boolean);
/** The earlier build suites compare against (the `eras` suite); see baseline.ts. */
const baseline = values.baseline || process.env.BENCH_BASELINE || DEFAULT_BASELINE;
/** A suite that runs longer than this is abandoned and reported as failed. */
const SUITE_TIMEOUT_MS = quick ? 3 * 60_000 : 10 * 60_000;
/** A suite's one-time `prepare` (e.g. building the baseline the first time) gets this long, apart from its run. */
const PREPARE_TIMEOUT_MS = 25 * 60_000;

interface SuiteResult {
  name: string;
  description?: string;
  ok: boolean;
  error?: string;
  seconds: number;
  tables: BenchTable[];
  checks: BenchCheck[];
  figures: Record<string, unknown>;
}

const suitesDir = join(benchDir, 'src', 'suites');
const files = readdirSync(suitesDir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .sort();

const suites: Suite[] = [];
/** Suite files that failed to load (e.g. a workspace package they import is not built): an error only where selected. */
const broken: { name: string; error: string }[] = [];
for (const file of files) {
  let mod: { default?: Suite };
  try {
    mod = (await import(pathToFileURL(join(suitesDir, file)).href)) as { default?: Suite };
  } catch (err) {
    broken.push({ name: file.replace(/\.ts$/, ''), error: err instanceof Error ? err.message : String(err) });
    continue;
  }
  const suite = mod.default;
  if (!suite || typeof suite.run !== 'function' || typeof suite.name !== 'string') {
    console.error(`bench: ${file} has no default-exported Suite; skipped`);
    continue;
  }
  suites.push(suite);
}

if (values.list) {
  for (const s of suites) console.log(`${s.name}${s.description ? `  ${s.description}` : ''}`);
  for (const b of broken) console.log(`${b.name}  (cannot load: ${b.error.split('\n')[0]})`);
  process.exit(0);
}

const unknown = filter.filter((f) => !suites.some((s) => s.name === f) && !broken.some((b) => b.name === f));
if (unknown.length > 0) {
  console.error(`bench: no suite named ${unknown.join(', ')} (have: ${[...suites, ...broken].map((s) => s.name).join(', ')})`);
  process.exit(2);
}
const selected = filter.length > 0 ? suites.filter((s) => filter.includes(s.name)) : suites;
const selectedBroken = filter.length > 0 ? broken.filter((b) => filter.includes(b.name)) : broken;

const print = (text = '') => console.log(text);
const printTable = (t: BenchTable) => {
  print(`\n${t.title}`);
  print(table(t.headers, t.rows));
  for (const n of t.notes ?? []) print(`  ${n}`);
};

print(
  `mcpkit bench: ${quick ? 'QUICK pass (figures indicative only)' : 'full run'}; node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'} ×${os.availableParallelism()}, ${os.platform()} ${os.release()}`,
);
print(`suites: ${selected.map((s) => s.name).join(', ') || '(none)'}`);

const results: SuiteResult[] = selectedBroken.map((b) => ({
  name: b.name,
  ok: false,
  error: `cannot load: ${b.error}`,
  seconds: 0,
  tables: [],
  checks: [],
  figures: {},
}));
for (const r of results) print(`\n=== ${r.name}\n  ERROR  ${r.name}: ${r.error}`);
for (const suite of selected) {
  const result: SuiteResult = {
    name: suite.name,
    ...(suite.description ? { description: suite.description } : {}),
    ok: true,
    seconds: 0,
    tables: [],
    checks: [],
    figures: {},
  };
  const ctx: BenchContext = {
    quick,
    filter,
    benchDir,
    repoRoot,
    baseline,
    print,
    scale: (full, small) => (quick ? small : full),
    table(t) {
      result.tables.push(t);
      printTable(t);
    },
    check(label, pass, detail) {
      result.checks.push({ label, pass, detail });
      print(`  ${pass ? 'PASS' : 'FAIL'}  ${label}: ${detail}`);
    },
    record(key, value) {
      result.figures[key] = value;
    },
  };
  print(`\n=== ${suite.name}${suite.description ? ` — ${suite.description}` : ''}`);
  const t0 = performance.now();
  try {
    const prepared = suite.prepare ? await withTimeout(suite.prepare(ctx), PREPARE_TIMEOUT_MS, `suite ${suite.name} (prepare)`) : undefined;
    await withTimeout(suite.run(ctx, prepared), SUITE_TIMEOUT_MS, `suite ${suite.name}`);
  } catch (err) {
    result.ok = false;
    result.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    print(`  ERROR  ${suite.name}: ${result.error}`);
  }
  result.seconds = (performance.now() - t0) / 1000;
  results.push(result);
}

print('\n=== summary');
print(
  table(
    ['suite', 'status', 'checks passed', 'seconds'],
    results.map((r) => [
      r.name,
      r.ok ? 'ok' : 'ERROR',
      `${r.checks.filter((c) => c.pass).length}/${r.checks.length}`,
      r.seconds.toFixed(1),
    ]),
  ),
);
const failed = results.flatMap((r) => r.checks.filter((c) => !c.pass).map((c) => `${r.name}: ${c.label}: ${c.detail}`));
for (const f of failed) print(`  FAIL  ${f}`);
if (quick && failed.length > 0) print('  (quick pass: too few samples to judge targets; run the full bench before concluding)');

const outDir = join(benchDir, 'results');
mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, quick ? 'latest-quick.json' : 'latest.json');
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      quick,
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpu: os.cpus()[0]?.model,
      cpus: os.availableParallelism(),
      suites: results,
    },
    null,
    2,
  )}\n`,
);
print(`\nresults written to ${outFile}`);
// A suite error fails the run; a missed target does not (it is a figure, printed above).
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
