#!/usr/bin/env node
// The agent as a CLIENT under the official conformance suite, against the BUILT @mcpkit/agent (run the build first):
//
//   node tooling/scripts/interop-client.mjs [scenario ...]     (default: every scenario in SCENARIOS)
//
// `conformance client --command "<node> packages/agent/conformance/client.mjs" --scenario <name> --spec-version
// 2026-07-28` starts the suite's scenario server, runs our client with its URL, and checks what the client sent.
// The client connects through the agent's MCP layer (`createRegistry`, as `mcp-agent` does) and does what each
// scenario expects (see its header); in the `auth/*` scenarios it logs in first through the agent's OAuth code
// (`login` and the token store, the browser step walked over loopback HTTP: packages/agent/conformance/auth.mjs).
// Several auth scenarios are negative (a refused resource, issuer or `iss`): there the suite allows our client
// to fail and checks that it stopped before the token request. The suite needs Node 22: `npx -y -p node@22 -p
// <suite>` installs it with npm's node@22 package and this script runs that Node for the suite only; the client
// runs on the Node running this script. Each scenario is bounded (the suite's --timeout for the client, a hard
// limit per scenario) and so is the whole run (scenarios left when RUN_LIMIT_MS is spent fail as not run).
// Prints a table; exits 1 if any scenario failed. Network: loopback, plus the npm registry on the first run.
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFile, NODE22, quietEnv, removeTemp, resolveNode22Tool, root, run, tail } from './lib.mjs';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const SPEC = '2026-07-28';
/**
 * The client scenarios of the frozen 2026-07-28 requirement set (`conformance list --requirements 2026-07-28`),
 * then the skills extension's client scenarios.
 */
const SCENARIOS = [
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  // Authorization (the agent's OAuth login), in the suite's order.
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  // The skills extension (SEP-2640), scored by us as required: list without prefetching, refuse what fails
  // verification. The suite lists them as `extension` (optional for its tiers); it has no tasks client scenario.
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];
/** Of SCENARIOS, those of an extension (run at 2026-07-28 with --force). */
const EXTENSION_SCENARIOS = new Set(SCENARIOS.filter((name) => name.startsWith('sep-2640-')));
/**
 * Checks that must have succeeded besides the suite's verdict, where the suite alone would pass a client that
 * never got far enough to be tested: auth/resource-mismatch passes any client that makes no authorization
 * request, a crashed one too; ours must have read the protected resource metadata it then refuses. The skills
 * scenarios' own check must have run and passed.
 */
const REACHED = {
  'auth/resource-mismatch': ['prm-pathbased-requested'],
  // A SKIPPED check (the client never listed skills) would leave the suite's verdict green with nothing tested.
  'sep-2640-client-no-prefetch': ['sep-2640-host-no-prefetch'],
  'sep-2640-client-verify-digest': ['sep-2640-host-verify-digest'],
  'sep-2640-client-verify-size': ['sep-2640-host-size-mismatch-failure'],
  'sep-2640-client-verify-frontmatter': ['sep-2640-host-frontmatter-comparison'],
};
/** The suite's limit for our client (ms); the whole scenario gets this plus time for the suite's own start and stop. */
const CLIENT_TIMEOUT_MS = 30_000;
const SCENARIO_TIMEOUT_MS = CLIENT_TIMEOUT_MS + 60_000;
/** The whole run (a passing run takes a minute or two). */
const RUN_LIMIT_MS = 10 * 60_000;
const ICON = { pass: '✅', fail: '❌' };

const CLIENT = join(root, 'packages', 'agent', 'conformance', 'client.mjs');
const BUILT = join(root, 'packages', 'agent', 'dist', 'index.js');

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0) {
  console.log(`[interop-client] unknown scenario ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})`);
  process.exit(2);
}
const selected = wanted.length > 0 ? wanted : SCENARIOS;
if (!existsSync(BUILT)) {
  console.log('[interop-client] packages/agent/dist is missing: build first (turbo run build --filter=@mcpkit/agent)');
  process.exit(1);
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-interop-client-'));

/** One client scenario; returns { status: 'pass'|'fail', summary, details }. */
function scenario(suite, name, limitMs) {
  const dir = join(tmp, name.replace('/', '-'));
  mkdirSync(dir);
  // The suite splits --command on spaces and runs it through a shell: no spaces in these paths.
  const command = `${process.execPath} ${CLIENT}`;
  const args = [suite.bin, 'client', '--command', command, '--scenario', name, '--spec-version', SPEC];
  // Extension scenarios are "not on the spec timeline" for the suite: it skips them at a spec version unless forced.
  if (EXTENSION_SCENARIOS.has(name)) args.push('--force');
  const res = run(suite.node, [...args, '--timeout', String(CLIENT_TIMEOUT_MS), '-o', dir], {
    cwd: tmp,
    // The client's token store goes under TMPDIR: in this run's directory, removed at the end even if the suite
    // killed the client.
    env: { ...quietEnv, HOME: join(tmp, 'home'), TMPDIR: join(tmp, 'tmp') },
    timeoutMs: limitMs,
  });
  const file = findFile(dir, 'checks.json');
  const timedOut = res.error?.code === 'ETIMEDOUT' ? ` (stopped after ${Math.round(limitMs / 1000)} s)` : '';
  if (!file) return { status: 'fail', summary: `no results (exit ${res.status})${timedOut}`, details: tail(res.output, 30) };
  const checks = JSON.parse(readFileSync(file, 'utf8'));
  const count = (s) => checks.filter((c) => c.status === s).length;
  const [ok, bad, warn, skipped] = [count('SUCCESS'), count('FAILURE'), count('WARNING'), count('SKIPPED')];
  const details = checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.status} ${c.id}: ${c.description}${c.errorMessage ? ` — ${c.errorMessage}` : ''}`)
    .join('\n');
  // INFO entries (the suite's request log) are not checks.
  const summary = `${ok}/${ok + bad + warn} checks${skipped ? `, ${skipped} skipped by the suite` : ''}${warn ? `, ${warn} warning${warn > 1 ? 's' : ''}` : ''}`;
  // The suite exits non-zero on a failed check, a warning, a client that failed or timed out.
  if (bad > 0 || warn > 0 || ok === 0 || res.status !== 0) {
    return { status: 'fail', summary: `${summary}, ${bad} failed${timedOut}`, details: details || tail(res.output, 30) };
  }
  const unreached = (REACHED[name] ?? []).filter((id) => !checks.some((c) => c.id === id && c.status === 'SUCCESS'));
  if (unreached.length > 0) {
    return { status: 'fail', summary: `${summary}, but the client never got to ${unreached.join(', ')}`, details: tail(res.output, 30) };
  }
  return { status: 'pass', summary, details };
}

let failed = false;
try {
  mkdirSync(join(tmp, 'home'));
  mkdirSync(join(tmp, 'tmp'));
  console.log(`[interop-client] installing ${CONFORMANCE} with ${NODE22} (npx cache)`);
  const suite = resolveNode22Tool(CONFORMANCE, 'conformance', tmp);
  console.log(`[interop-client] suite on Node ${suite.nodeVersion}; client on Node ${process.version}: ${CLIENT.slice(root.length + 1)}`);
  const rows = [];
  const deadline = Date.now() + RUN_LIMIT_MS;
  for (const name of selected) {
    const started = Date.now();
    const left = deadline - started;
    const result =
      left > 10_000
        ? scenario(suite, name, Math.min(SCENARIO_TIMEOUT_MS, left))
        : { status: 'fail', summary: `not run: the run's limit of ${RUN_LIMIT_MS / 60_000} min was spent`, details: '' };
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    rows.push([name, `${ICON[result.status]} ${result.status}`, result.summary, `${seconds} s`]);
    console.log(`[interop-client]   ${name}: ${ICON[result.status]} ${result.summary}`);
    if (result.status !== 'pass') {
      failed = true;
      if (result.details) console.log(result.details.replace(/^/gm, '[interop-client]     '));
    }
  }
  const header = ['scenario (2026-07-28)', 'result', 'checks', 'time'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${line(header)}\n| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |\n${rows.map(line).join('\n')}`);
} catch (error) {
  failed = true;
  console.log(`[interop-client] ✗ ${error.message}`);
} finally {
  removeTemp('interop-client', tmp, false);
}

if (failed) {
  console.log('\n[interop-client] FAILED: see the ❌ lines above');
  process.exit(1);
}
console.log(`\n[interop-client] OK: ${selected.length} client scenario${selected.length === 1 ? '' : 's'}`);
