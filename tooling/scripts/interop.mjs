#!/usr/bin/env node
// Interop with clients nobody here wrote, against the BUILT servers (run the build first):
//
//   node tooling/scripts/interop.mjs [server ...] [--out-dir <dir>]     (default: every server with src/index.ts)
//
// 1. The official conformance suite (@modelcontextprotocol/conformance, pinned in tooling/interop/conformance.mjs)
//    against `mcp-server-<name> --transport http --port 0` on 127.0.0.1, for both protocol revisions one binary
//    serves: 2025-11-25 (sessions, `initialize`) and 2026-07-28 (stateless, `server/discover`). A server that serves
//    the suite's own fixture surface (SERVER_SETTINGS `scenarios: 'requirements'`: server-everything's `conformance`
//    profile) runs each revision's frozen requirement set (`--requirements <rev>`: every required scenario must pass)
//    and reports what the suite runs alongside without scoring (scenarios added after the release) without failing
//    on it, except the tasks extension's `tasks-*` scenarios, which we score as required for that profile
//    (`requiredExtensions`: a failing one fails the run). Any other server runs the protocol-level scenarios that apply to every server
//    (PROTOCOL_SCENARIOS). A third run starts the server with `--stateless` and runs the 2025-11-25 protocol-level
//    scenarios. `logging-set-level` runs only when the server declares the logging capability (probed first).
// 2. The official Inspector (@modelcontextprotocol/inspector, pinned below) in CLI mode drives the stdio bin:
//    tools/list (every tool has a title, the four annotation hints and an object input schema; `--strict`
//    finds no error-severity schema-portability problem), plus the tools/call checks in tooling/interop/calls.mjs.
// 3. For the servers in tooling/interop/oauth.mjs (memory, fetch): the same Inspector over Streamable HTTP against
//    the bin protected by OAuth (`--oauth-issuer`, a real `oidc-provider` on loopback), with a token obtained
//    beforehand through the authorization code flow with PKCE: refused without it (401), tools listed and one
//    called with `--header "Authorization: Bearer …"`, in both protocol eras.
// Both tools need Node 22: `npx -y -p node@22 -p <tool>` installs them with npm's node@22 package and this
// script runs that Node for those steps only; the servers themselves run on the Node running this script.
// Prints a table per server and writes it as Markdown to <out-dir>/<package-dir>.md (default
// tooling/interop/results), ready to paste into the server's README. Exits 1 if a required check failed.
// Network: loopback, plus the npm registry on the first run (npx cache).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CONFORMANCE,
  promoteUnscored,
  REQUIRED_EXTENSION_SCENARIOS,
  runRequirements,
  runScenario,
  TASKS_SCENARIOS,
} from '../interop/conformance.mjs';
import { INSPECTOR, inspectorChecks } from '../interop/inspector.mjs';
import { oauthChecks } from '../interop/oauth.mjs';
import { ICON, renderReport, UNSCORED } from '../interop/report.mjs';
import { binOf, NODE22, quietEnv, resolveNode22Tool, root, run, selectServersOrExit, startProcess } from './lib.mjs';

/** Protocol-level scenarios that apply to any server, per revision (each is in that revision's requirement set). */
const PROTOCOL_SCENARIOS = {
  '2025-11-25': ['server-initialize', 'ping', 'dns-rebinding-protection', 'tools-list', 'server-sse-multiple-streams', 'logging-set-level'],
  '2026-07-28': ['tools-list', 'dns-rebinding-protection', 'caching'],
};
/**
 * Servers that need more than the defaults. `args` start the HTTP server; the Inspector passes no arguments
 * through, so it gets the same choice as `env`. `scenarios: 'requirements'` runs each revision's whole requirement
 * set in the stateful runs (the `--stateless` run keeps the protocol-level scenarios: without a session nothing can
 * reach a 2025-11-25 client during a call, so its sampling, elicitation, logging and progress scenarios cannot apply).
 */
const SERVER_SETTINGS = {
  '@mcpkit/server-everything': {
    label: 'its `conformance` profile (`--profile conformance`)',
    args: ['--profile', 'conformance'],
    env: { EVERYTHING_PROFILE: 'conformance' },
    scenarios: 'requirements',
    /**
     * Scenarios the suite runs alongside a revision's requirement set without scoring, that we score as required
     * (a failing one fails the run): the tasks extension's, served by this profile's fixtures.
     */
    requiredExtensions: { '2026-07-28': TASKS_SCENARIOS },
    /** Explanations printed under the table for scenarios that pass with warnings. */
    notes: {
      'server-sse-polling':
        "the warnings are the priming event and its `retry` field, which the SDK sends only to requests of `MCP-Protocol-Version` 2025-11-25 or later, and the suite's request declares 2025-03-26. The disconnect/resume check passes: `test_reconnection` sends a log event, closes its stream, and its result is replayed when the suite reconnects with `Last-Event-ID` (the HTTP runner's per-session event store)",
    },
  },
};
SERVER_SETTINGS['@mcpkit/server-git'] = {
  label: 'a repository made for the run (`--repository <tmp>/git-root`, env `GIT_REPOSITORIES` for the Inspector)',
  /** A temp folder holding one small repository, made with the git CLI; the server is confined to it. */
  setup(dir) {
    const root = join(dir, 'git-root');
    const repo = join(root, 'repo');
    mkdirSync(repo, { recursive: true });
    const env = {
      ...quietEnv,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Interop',
      GIT_AUTHOR_EMAIL: 'interop@example.com',
      GIT_COMMITTER_NAME: 'Interop',
      GIT_COMMITTER_EMAIL: 'interop@example.com',
    };
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', 'README.md'],
      ['commit', '-q', '-m', 'first'],
    ]) {
      if (args[0] === 'add') writeFileSync(join(repo, 'README.md'), '# interop\n');
      const res = run('git', args, { cwd: repo, env });
      if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${res.stderr}`);
    }
    return { args: ['--repository', root], env: { GIT_REPOSITORIES: root }, vars: { repo } };
  },
};
/** The server runs: one per revision with sessions allowed, and one `--stateless` (2025-11-25 protocol-level only). */
const RUNS = [
  { id: '2025-11-25', label: '2025-11-25', revision: '2025-11-25', args: [] },
  { id: '2026-07-28', label: '2026-07-28', revision: '2026-07-28', args: [] },
  { id: 'stateless', label: '2025-11-25, `--stateless`', revision: '2025-11-25', args: ['--stateless'] },
];
/**
 * `caching` (2026-07-28) asks every list method for its cache hints, including the lists of features a server does
 * not have: a server without prompts or resources rightly answers those methods -32601 (it declares no such
 * capability in `server/discover`). When those are the only failed checks, the scenario passes for this server,
 * with a note naming them; any other failed check still fails it.
 */
const ABSENT_LIST = /FAILURE sep-2549-(prompts|resources|resources-templates)-list-caching-hints: .*-32601: Method not found/;
function notApplicable(name, r) {
  if (name !== 'caching' || r.status !== 'fail' || !r.details) return;
  const failures = r.details.split('\n').filter((line) => line.trim().startsWith('FAILURE'));
  if (failures.length === 0 || !failures.every((line) => ABSENT_LIST.test(line))) return;
  const lists = failures.map((line) => `${ABSENT_LIST.exec(line)[1].replace('-templates', '/templates')}/list`);
  r.status = 'pass';
  r.summary = `${r.summary.replace(/^FAIL/i, 'pass')}; ${lists.join(', ')} not applicable`;
  r.note = `${lists.join(' and ')} answer${lists.length === 1 ? 's' : ''} -32601: the server has no such feature and declares no capability for it; every list it has carries ttlMs and cacheScope`;
}

/**
 * Scenarios allowed to end in a warning (no failed check, no passed one) in a run, with the reason. A
 * failure is never allowed. Keep this list short and explain every entry.
 */
const WARNING_OK = {
  '2026-07-28': {
    'tasks-status-notifications':
      'the suite itself skips its one check in 0.2.0-alpha.12 (status notifications are optional, and its harness awaits a rewrite for `subscriptions/listen`): there is nothing to pass',
  },
  stateless: {
    'server-sse-multiple-streams':
      'stateless mode has no sessions, so the suite warns "Server did not provide session ID" and does not test streams; the stateful run covers them',
  },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'out-dir': { type: 'string', default: join(root, 'tooling', 'interop', 'results') } },
});
const outDir = values['out-dir'];
const selection = selectServersOrExit('interop', positionals);

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-interop-'));
// HOME and the data folder of every process started here: the Inspector may keep a catalog in ~/.mcp-inspector and a
// server may keep data under XDG_DATA_HOME; neither belongs in the user's home.
const sandboxHome = join(tmp, 'home');
mkdirSync(sandboxHome);
const sandboxEnv = { ...quietEnv, HOME: sandboxHome, XDG_DATA_HOME: join(sandboxHome, '.local', 'share') };
let failed = false;

/** Our own initialize over HTTP: what the server declares (to know whether logging-set-level applies). */
async function probe(url) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpkit-interop', version: '0.0.0' } },
    }),
  });
  const body = await res.text();
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? body
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
        .find((m) => m.id === 1)
    : JSON.parse(body);
  const session = res.headers.get('mcp-session-id');
  if (session) await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } }).catch(() => {});
  if (!json?.result) throw new Error(`initialize failed (HTTP ${res.status}): ${body.slice(0, 500)}`);
  return json.result;
}

/**
 * One run of `server` (its bin with `args`): every scenario it applies, as { results: Map<name, result>,
 * unscored: Map<name, result & { reason }> }. The server process lives for this run only.
 */
async function conformanceRun(conformance, binPath, settings, runSpec, dir) {
  const results = new Map();
  const unscored = new Map();
  const args = ['--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...(settings.args ?? []), ...runSpec.args];
  const proc = startProcess(process.execPath, [binPath, ...args], {
    ready: (out) => /listening on http:\/\/\S+\/mcp/.test(out),
    cwd: tmp,
    env: sandboxEnv,
  });
  try {
    await proc.started;
    const url = /listening on (http:\/\/\S+\/mcp)/.exec(proc.output())[1];
    if (settings.scenarios === 'requirements' && runSpec.id !== 'stateless') {
      const set = promoteUnscored(
        runRequirements(conformance, url, runSpec.revision, dir, tmp),
        settings.requiredExtensions?.[runSpec.revision] ?? [],
      );
      for (const [name, r] of set.required) results.set(name, r);
      for (const [name, r] of set.unscored) unscored.set(name, r);
      return { results, unscored };
    }
    const logging = (await probe(url)).capabilities?.logging !== undefined;
    for (const name of PROTOCOL_SCENARIOS[runSpec.revision]) {
      if (name === 'logging-set-level' && !logging) {
        results.set(name, { status: 'n/a', summary: 'no logging capability declared' });
        continue;
      }
      results.set(name, runScenario(conformance, url, name, runSpec.revision, join(dir, name), tmp));
    }
    for (const name of REQUIRED_EXTENSION_SCENARIOS[runSpec.revision]?.all ?? []) {
      results.set(name, runScenario(conformance, url, name, runSpec.revision, join(dir, name), tmp));
    }
  } catch (error) {
    results.set('(server start)', { status: 'fail', summary: `could not run the HTTP server: ${error.message}` });
  } finally {
    await proc.stop();
  }
  return { results, unscored };
}

try {
  if (selection.selected.length === 0) throw new Error('no server package to check');
  console.log(`[interop] installing ${CONFORMANCE} and ${INSPECTOR} with ${NODE22} (npx cache)`);
  const conformance = resolveNode22Tool(CONFORMANCE, 'conformance', tmp);
  const inspectorTool = resolveNode22Tool(INSPECTOR, 'mcp-inspector', tmp);
  mkdirSync(outDir, { recursive: true });

  for (const server of selection.selected) {
    const [binName, binRel] = binOf(server.manifest);
    const binPath = join(server.path, binRel);
    const base = SERVER_SETTINGS[server.name] ?? {};
    const prepared = base.setup ? base.setup(mkdtempSync(join(tmp, `${server.dir}-`))) : {};
    const settings = { ...base, ...prepared, env: { ...(base.env ?? {}), ...(prepared.env ?? {}) } };
    console.log(`\n[interop] ${server.name} (${binName}${settings.args ? ` ${settings.args.join(' ')}` : ''})`);
    const notes = [];

    const byRun = {};
    const unscoredRows = []; // [revision, name, result]
    for (const runSpec of RUNS) {
      const { results, unscored } = await conformanceRun(
        conformance,
        binPath,
        settings,
        runSpec,
        join(tmp, 'conformance', server.dir, runSpec.id),
      );
      for (const [name, r] of results) {
        notApplicable(name, r);
        if (r.status === 'warn' && WARNING_OK[runSpec.id]?.[name]) r.note = WARNING_OK[runSpec.id][name];
        else if (r.status !== 'pass' && r.status !== 'n/a') failed = true;
        if (r.status === 'pass' && /warning/.test(r.summary) && settings.notes?.[name]) r.note = settings.notes[name];
        console.log(`[interop]   conformance ${name} (${runSpec.label}): ${ICON[r.status]} ${r.summary}${r.note ? ` (${r.note})` : ''}`);
        if (r.status !== 'pass' && r.status !== 'n/a' && !r.note && r.details) console.log(r.details.replace(/^/gm, '[interop]     '));
      }
      for (const [name, r] of unscored) {
        unscoredRows.push([runSpec.revision, name, r]);
        console.log(`[interop]   not scored (${r.reason}) ${name} (${runSpec.label}): ${UNSCORED[r.status]} ${r.summary}`);
      }
      byRun[runSpec.id] = results;
    }
    const names = [...new Set(RUNS.flatMap((r) => [...byRun[r.id].keys()]))];
    for (const runSpec of RUNS)
      for (const name of names)
        if (byRun[runSpec.id].get(name)?.note) notes.push(`${name} (${runSpec.label}): ${byRun[runSpec.id].get(name).note}`);
    const tally = RUNS.map((runSpec) => {
      const ran = [...byRun[runSpec.id].values()].filter((r) => r.status !== 'n/a');
      return `${ran.filter((r) => r.status === 'pass').length} of ${ran.length} ${runSpec.label}`;
    });
    if (settings.scenarios === 'requirements') {
      notes.unshift(
        `scenarios passed: ${tally.join('; ')}. The stateful runs are each revision's whole frozen requirement set (\`--requirements\`); \`--stateless\` runs the 2025-11-25 protocol-level scenarios, since without a session nothing reaches a 2025 client during a call (sampling, elicitation, log and progress notifications, stream resumption)`,
      );
    }
    console.log(`[interop]   conformance scenarios passed: ${tally.join('; ')}`);
    if (unscoredRows.length > 0) {
      const passing = unscoredRows.filter(([, , r]) => r.status === 'pass').map(([rev, name]) => `${name} (${rev})`);
      console.log(`[interop]   not scored, passing: ${passing.join(', ') || 'none'}`);
    }

    const checks = inspectorChecks(inspectorTool, binPath, server.name, settings, { cwd: tmp, env: sandboxEnv });
    const oauth = await oauthChecks(server.name, binPath, inspectorTool, {
      dir: mkdtempSync(join(tmp, `${server.dir}-oauth-`)),
      cwd: tmp,
      env: sandboxEnv,
    });
    for (const [where, list] of [
      ['inspector', checks],
      ['inspector oauth', oauth?.checks ?? []],
    ]) {
      for (const [label, ok, detail] of list) {
        if (!ok) failed = true;
        console.log(`[interop]   ${where} ${ok ? '✅' : '❌'} ${label.replaceAll('`', '')}${ok ? '' : `\n[interop]     ${detail}`}`);
      }
    }

    const md = renderReport({ runs: RUNS, conformance, settings, names, byRun, notes, unscoredRows, checks, oauth });
    const file = join(outDir, `${server.dir}.md`);
    writeFileSync(file, md);
    // The repo's Biome formats Markdown (it pads tables): format the file so `biome ci` accepts it as written.
    const biome = join(root, 'node_modules', '.bin', 'biome');
    if (existsSync(biome)) run(biome, ['format', '--write', file]);
    console.log(`[interop]   → ${relative(root, file)}`);
  }
} catch (error) {
  failed = true;
  console.log(`[interop] ✗ ${error.message}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (failed) {
  console.log('\n[interop] FAILED: see the ❌ lines above');
  process.exit(1);
}
console.log(`\n[interop] OK: ${selection.selected.map((s) => s.name).join(', ')}`);
