// Running the official conformance suite (@modelcontextprotocol/conformance) against one server URL, for
// tooling/scripts/interop.mjs: one scenario at a time, or a whole frozen requirement set (`--requirements <rev>`),
// each scenario summarised as { status: 'pass'|'warn'|'fail', summary, details }.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFile, run, tail } from '../scripts/lib.mjs';

export const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/** The protocol revisions whose frozen requirement sets are checked, oldest first. */
export const REVISIONS = ['2025-11-25', '2026-07-28'];
/**
 * Extension scenarios we score as required on a revision (a failed one fails the run): `all` for every server,
 * `fixtures` also for a server serving the suite's fixture surface (`runRequirements`). The suite neither scores
 * nor runs them by default (`--requirements` leaves them out; alone they need `--force`). Skills (SEP-2640): issue
 * 34; `sep-2640-skills-directory` needs a skill folder holding a subfolder, which only the fixtures have.
 */
export const REQUIRED_EXTENSION_SCENARIOS = {
  '2026-07-28': { all: ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest'], fixtures: ['sep-2640-skills-directory'] },
};
const isRequiredExtension = (name) =>
  Object.values(REQUIRED_EXTENSION_SCENARIOS).some((set) => [...set.all, ...set.fixtures].includes(name));

/** One scenario's checks (the suite's checks.json) as a row: a failed check fails it, no passed check is a warning. */
export function summarise(checks, exitStatus = 0) {
  const count = (s) => checks.filter((c) => c.status === s).length;
  const [ok, bad, warn] = [count('SUCCESS'), count('FAILURE'), count('WARNING')];
  const details = checks
    .filter((c) => c.status !== 'SUCCESS')
    .map(
      (c) =>
        `${c.status} ${c.id}: ${c.description}${c.errorMessage ? ` — ${c.errorMessage}` : ''}\n${JSON.stringify(c.details ?? {}, null, 2)}`,
    )
    .join('\n');
  const summary = `${ok}/${checks.length} checks${warn ? `, ${warn} warning${warn > 1 ? 's' : ''}` : ''}`;
  if (bad > 0 || exitStatus !== 0) return { status: 'fail', summary: `${summary}, ${bad} failed`, details };
  if (ok === 0) return { status: 'warn', summary, details };
  return { status: 'pass', summary, details };
}

/** The suite's own list of server scenarios, each with the revisions (or `extension`) it names. */
export function listServerScenarios(tool, cwd) {
  const res = run(tool.node, [tool.bin, 'list'], { cwd, timeoutMs: 60_000 });
  const section = /Server scenarios[^\n]*\n([\s\S]*?)(?:\n\s*\n|\nClient scenarios|$)/.exec(res.stdout)?.[1] ?? '';
  const scenarios = [...section.matchAll(/^\s*-\s+([a-z0-9-]+)\s*\[([^\]]*)\]/gm)].map((m) => ({ name: m[1], tags: m[2].split(',') }));
  if (res.status !== 0 || scenarios.length === 0) throw new Error(`could not list the suite's server scenarios:\n${tail(res.output, 20)}`);
  return scenarios;
}

/** One scenario against `url`, speaking `revision`; results under `dir`. */
export function runScenario(tool, url, name, revision, dir, cwd) {
  mkdirSync(dir, { recursive: true });
  const args = [tool.bin, 'server', '--url', url, '--scenario', name, '--spec-version', revision, '-o', dir];
  if (isRequiredExtension(name)) args.push('--force');
  const res = run(tool.node, args, { cwd, timeoutMs: 120_000 });
  const file = findFile(dir, 'checks.json');
  if (!file) return { status: 'fail', summary: `no results (exit ${res.status})`, details: tail(res.output, 20) };
  return summarise(JSON.parse(readFileSync(file, 'utf8')), res.status);
}

/**
 * Every scenario of `revision`'s frozen requirement set against `url` (`--requirements`), plus what the suite runs
 * alongside without scoring (extensions such as tasks, scenarios added after the release). Returns
 * { required: Map<name, result>, unscored: Map<name, result & { reason }>, exitStatus, output }.
 */
export function runRequirements(tool, url, revision, dir, cwd) {
  mkdirSync(dir, { recursive: true });
  const res = run(tool.node, [tool.bin, 'server', '--url', url, '--requirements', revision, '-o', dir], { cwd, timeoutMs: 20 * 60_000 });
  // "Not scored for <rev>: …" then one "  ✓ name (reason)" line per scenario.
  const block = /Not scored for [^\n]*\n((?:\s+[✓✗][^\n]*\n?)*)/.exec(res.stdout)?.[1] ?? '';
  const reasons = new Map([...block.matchAll(/[✓✗]\s+([a-z0-9-]+)\s+\(([^)]*)\)/g)].map((m) => [m[1], m[2]]));
  const required = new Map();
  const unscored = new Map();
  for (const entry of readdirSync(dir).sort()) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    const file = name && findFile(join(dir, entry), 'checks.json');
    if (!file) continue;
    const result = summarise(JSON.parse(readFileSync(file, 'utf8')));
    if (reasons.has(name)) unscored.set(name, { ...result, reason: reasons.get(name) });
    else required.set(name, result);
  }
  const extensions = REQUIRED_EXTENSION_SCENARIOS[revision];
  for (const name of extensions ? [...extensions.all, ...extensions.fixtures] : []) {
    required.set(name, runScenario(tool, url, name, revision, join(dir, 'extensions', name), cwd));
  }
  if (required.size === 0) {
    required.set(`(requirements ${revision})`, {
      status: 'fail',
      summary: `no results (exit ${res.status})`,
      details: tail(res.output, 30),
    });
  }
  return { required, unscored, exitStatus: res.status, output: res.output };
}

/**
 * The suite's extension scenarios we score ourselves as required: every `tasks-*` server scenario of
 * 0.2.0-alpha.12 (the tasks extension, SEP-2663), which the 2026-07-28 requirement set runs without scoring.
 */
export const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/**
 * Moves the unscored results named in `names` from `set.unscored` to `set.required` (scored by us), each marked
 * `scoredBy: 'mcpkit'`; a name the run produced no result for is a failure (`not run`), so a scenario cannot
 * drop out of CI silently.
 */
export function promoteUnscored(set, names) {
  for (const name of names) {
    const result = set.unscored.get(name);
    set.unscored.delete(name);
    if (result) {
      const { reason, ...rest } = result;
      set.required.set(name, { ...rest, scoredBy: 'mcpkit', suiteReason: reason });
    } else if (!set.required.has(name)) {
      set.required.set(name, { status: 'fail', summary: 'not run by the suite', details: '', scoredBy: 'mcpkit' });
    }
  }
  return set;
}
