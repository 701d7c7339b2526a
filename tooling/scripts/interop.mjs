#!/usr/bin/env node
// Interop with clients nobody here wrote, against the BUILT servers (run the build first):
//
//   node tooling/scripts/interop.mjs [server ...] [--out-dir <dir>]     (default: every server with src/index.ts)
//
// 1. The official conformance suite (@modelcontextprotocol/conformance, pinned below) runs the protocol-level
//    server scenarios that apply to any server against `mcp-server-<name> --transport http --port 0` on
//    127.0.0.1, once stateful (sessions) and once with --stateless. `logging-set-level` runs only when the
//    server declares the logging capability (probed with our own initialize first). A server that serves
//    the suite's own fixture surface (SERVER_SETTINGS: server-everything's `conformance` profile) gets EVERY
//    server scenario of the suite (`conformance list`) in the stateful run.
// 2. The official Inspector (@modelcontextprotocol/inspector, pinned below) in CLI mode drives the stdio bin:
//    tools/list (every tool has a title, the four annotation hints and an object input schema; `--strict`
//    finds no error-severity schema-portability problem), plus the tools/call checks in tooling/interop/calls.mjs.
// Both tools need Node 22: `npx -y -p node@22 -p <tool>` installs them with npm's node@22 package and this
// script runs that Node for those steps only; the servers themselves run on the Node running this script.
// Prints a table per server and writes it as Markdown to <out-dir>/<package-dir>.md (default
// tooling/interop/results), ready to paste into the server's README. Exits 1 if a required check failed.
// Network: loopback, plus the npm registry on the first run (npx cache).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { calls } from '../interop/calls.mjs';
import { binOf, findFile, NODE22, quietEnv, resolveNode22Tool, root, run, selectServersOrExit, startProcess, tail } from './lib.mjs';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.1.16';
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
/** Protocol-level scenarios that apply to any server (2025-11-25 list, demand-and-peers §4.6). */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'dns-rebinding-protection',
  'tools-list',
  'server-sse-multiple-streams',
  'logging-set-level',
];
/**
 * Servers that need more than the defaults. `args` start the HTTP server; the Inspector passes no arguments
 * through, so it gets the same choice as `env`. `scenarios: 'all'` runs every server scenario of the suite
 * in the stateful run (the stateless run keeps SCENARIOS: without a session nothing can reach the client
 * during a call, so sampling, elicitation, logging and progress scenarios cannot apply there).
 */
const SERVER_SETTINGS = {
  '@mcpkit/server-everything': {
    label: 'its `conformance` profile (`--profile conformance`)',
    args: ['--profile', 'conformance'],
    env: { EVERYTHING_PROFILE: 'conformance' },
    scenarios: 'all',
    /** Explanations printed under the table for scenarios that pass with warnings. */
    notes: {
      'server-sse-polling':
        "the two warnings are the priming event and its `retry` field, which the SDK sends only to requests of `MCP-Protocol-Version` 2025-11-25 or later, and the suite's request declares 2025-03-26. The disconnect/resume check passes: `test_reconnection` sends a log event, closes its stream, and its result is replayed when the suite reconnects with `Last-Event-ID` (the HTTP runner's per-session event store)",
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
const MODES = [
  { id: 'stateful', label: 'stateful', args: [] },
  { id: 'stateless', label: '`--stateless`', args: ['--stateless'] },
];
/**
 * Scenarios allowed to end in a warning (no failed check, no passed one) in a mode, with the reason. A
 * failure is never allowed. Keep this list short and explain every entry.
 */
const WARNING_OK = {
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

/** Every server scenario of the suite, from its own `list` (the section before "Client scenarios"). */
function serverScenarios(tool) {
  const res = run(tool.node, [tool.bin, 'list'], { cwd: tmp, timeoutMs: 60_000 });
  const section = /Server scenarios[^\n]*\n([\s\S]*?)(?:\n\s*\n|\nClient scenarios|$)/.exec(res.stdout)?.[1] ?? '';
  const names = [...section.matchAll(/^\s*-\s+([a-z0-9-]+)/gm)].map((m) => m[1]);
  if (res.status !== 0 || names.length === 0) throw new Error(`could not list the suite's server scenarios:\n${tail(res.output, 20)}`);
  return names;
}

/** One conformance scenario; returns { status: 'pass'|'warn'|'fail'|'n/a', summary, details }. */
function scenario(tool, url, name, dir) {
  const res = run(tool.node, [tool.bin, 'server', '--url', url, '--scenario', name, '-o', dir], { cwd: tmp, timeoutMs: 120_000 });
  const file = findFile(dir, 'checks.json');
  if (!file) return { status: 'fail', summary: `no results (exit ${res.status})`, details: tail(res.output, 20) };
  const checks = JSON.parse(readFileSync(file, 'utf8'));
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
  if (bad > 0 || res.status !== 0) return { status: 'fail', summary: `${summary}, ${bad} failed`, details };
  if (ok === 0) return { status: 'warn', summary, details };
  return { status: 'pass', summary, details };
}

/** Runs the Inspector CLI against the stdio bin (with `env` set for it); returns { exitCode, json, stderr }. */
function inspector(tool, binPath, args, env = {}) {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const res = run(tool.node, [tool.bin, '--cli', '--format', 'json', ...envArgs, process.execPath, binPath, ...args], {
    cwd: tmp,
    env: sandboxEnv,
    timeoutMs: 60_000,
  });
  let json;
  try {
    json = JSON.parse(res.stdout);
  } catch {}
  return { exitCode: res.status, json, stderr: res.stderr, output: res.output };
}

function toolProblems(tools) {
  const problems = [];
  if (!Array.isArray(tools) || tools.length === 0) return ['no tools listed'];
  for (const t of tools) {
    if (!(t.title || t.annotations?.title)) problems.push(`${t.name}: no title`);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      if (typeof t.annotations?.[hint] !== 'boolean') problems.push(`${t.name}: annotations.${hint} missing`);
    }
    if (t.inputSchema?.type !== 'object') problems.push(`${t.name}: inputSchema is not an object schema`);
    if (t.outputSchema && t.outputSchema.type !== 'object') problems.push(`${t.name}: outputSchema is not an object schema`);
  }
  return problems;
}

const ICON = { pass: '✅ pass', warn: '⚠️ warning', fail: '❌ FAIL', 'n/a': '— n/a', skip: '— not run' };

try {
  if (selection.selected.length === 0) throw new Error('no server package to check');
  console.log(`[interop] installing ${CONFORMANCE} and ${INSPECTOR} with ${NODE22} (npx cache)`);
  const conformance = resolveNode22Tool(CONFORMANCE, 'conformance', tmp);
  const inspectorTool = resolveNode22Tool(INSPECTOR, 'mcp-inspector', tmp);
  mkdirSync(outDir, { recursive: true });
  let allScenarios;

  for (const server of selection.selected) {
    const [binName, binRel] = binOf(server.manifest);
    const binPath = join(server.path, binRel);
    const base = SERVER_SETTINGS[server.name] ?? {};
    const prepared = base.setup ? base.setup(mkdtempSync(join(tmp, `${server.dir}-`))) : {};
    const settings = { ...base, ...prepared, env: { ...(base.env ?? {}), ...(prepared.env ?? {}) } };
    console.log(`\n[interop] ${server.name} (${binName}${settings.args ? ` ${settings.args.join(' ')}` : ''})`);
    const rows = []; // [scenario, { mode: result }]
    const notes = [];
    let logging = true;

    if (settings.scenarios === 'all') allScenarios ??= serverScenarios(conformance);
    const scenariosOf = (mode) => (settings.scenarios === 'all' && mode.id === 'stateful' ? allScenarios : SCENARIOS);
    const names = [...new Set(MODES.flatMap(scenariosOf))];
    const results = Object.fromEntries(names.map((s) => [s, {}]));
    for (const mode of MODES) {
      const modeScenarios = scenariosOf(mode);
      for (const name of names) {
        if (!modeScenarios.includes(name)) {
          results[name][mode.id] = { status: 'skip', summary: 'protocol-level scenarios only in this mode' };
        }
      }
      const args = ['--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...(settings.args ?? []), ...mode.args];
      const proc = startProcess(process.execPath, [binPath, ...args], {
        ready: (out) => /listening on http:\/\/\S+\/mcp/.test(out),
        cwd: tmp,
        env: sandboxEnv,
      });
      try {
        await proc.started;
        const url = /listening on (http:\/\/\S+\/mcp)/.exec(proc.output())[1];
        const caps = (await probe(url)).capabilities ?? {};
        logging = caps.logging !== undefined;
        for (const name of modeScenarios) {
          if (name === 'logging-set-level' && !logging) {
            results[name][mode.id] = { status: 'n/a', summary: 'no logging capability declared' };
            continue;
          }
          const r = scenario(conformance, url, name, join(tmp, 'conformance', server.dir, mode.id, name));
          if (r.status === 'warn' && WARNING_OK[mode.id]?.[name]) {
            r.note = WARNING_OK[mode.id][name];
          } else if (r.status !== 'pass') {
            failed = true;
          }
          if (r.status === 'pass' && /warning/.test(r.summary) && settings.notes?.[name]) r.note = settings.notes[name];
          results[name][mode.id] = r;
          console.log(`[interop]   conformance ${name} (${mode.id}): ${ICON[r.status]} ${r.summary}${r.note ? ` (${r.note})` : ''}`);
          if (r.status !== 'pass' && !r.note && r.details) console.log(r.details.replace(/^/gm, '[interop]     '));
        }
      } catch (error) {
        failed = true;
        console.log(`[interop]   ✗ could not run the ${mode.id} HTTP server: ${error.message}`);
        for (const name of modeScenarios) results[name][mode.id] ??= { status: 'fail', summary: 'server did not start' };
      } finally {
        await proc.stop();
      }
    }
    for (const name of names) rows.push([name, results[name]]);
    for (const mode of MODES)
      for (const name of names) if (results[name][mode.id]?.note) notes.push(`${name} (${mode.id}): ${results[name][mode.id].note}`);
    const tally = MODES.map((mode) => {
      const ran = names.map((n) => results[n][mode.id]).filter((r) => r.status !== 'skip' && r.status !== 'n/a');
      return `${ran.filter((r) => r.status === 'pass').length} of ${ran.length} ${mode.id}`;
    });
    if (settings.scenarios === 'all') {
      notes.unshift(
        `scenarios passed: ${tally.join(', ')}. Every server scenario of the suite runs stateful; \`--stateless\` runs the protocol-level ones, since without a session nothing reaches the client during a call (sampling, elicitation, log and progress notifications, stream resumption)`,
      );
    }
    console.log(`[interop]   conformance scenarios passed: ${tally.join(', ')}`);

    const checks = []; // [label, ok, detail]
    const list = inspector(inspectorTool, binPath, ['--method', 'tools/list'], settings.env);
    const tools = list.json?.result?.tools;
    const listProblems = list.exitCode === 0 ? toolProblems(tools) : [`exit ${list.exitCode}: ${tail(list.output, 10)}`];
    checks.push([
      `\`tools/list\`: ${Array.isArray(tools) ? tools.map((t) => `\`${t.name}\``).join(', ') : 'no tools'}, each with a title, all four annotation hints and object schemas`,
      listProblems.length === 0,
      listProblems.join('; '),
    ]);
    const strict = inspector(inspectorTool, binPath, ['--method', 'tools/list', '--strict'], settings.env);
    checks.push([
      '`tools/list --strict`: no error-severity tool-schema portability problem',
      strict.exitCode === 0,
      strict.exitCode === 0 ? '' : `exit ${strict.exitCode}: ${tail(strict.stderr, 15)}`,
    ]);
    for (const call of calls[server.name] ?? []) {
      const args = ['--method', 'tools/call', '--tool-name', call.tool];
      const callArgs = typeof call.args === 'function' ? call.args(settings.vars ?? {}) : call.args;
      const pairs = Object.entries(callArgs).map(([k, v]) => `${k}=${v}`);
      if (pairs.length > 0) args.push('--tool-arg', ...pairs);
      const res = inspector(inspectorTool, binPath, args, settings.env);
      const problem = call.expect(res.json?.result, res.exitCode);
      checks.push([call.label, problem === undefined, problem ?? '']);
    }
    for (const [label, ok, detail] of checks) {
      if (!ok) failed = true;
      console.log(`[interop]   inspector ${ok ? '✅' : '❌'} ${label.replaceAll('`', '')}${ok ? '' : `\n[interop]     ${detail}`}`);
    }

    const md = [
      `<!-- Generated by tooling/scripts/interop.mjs; re-run it rather than editing. -->`,
      `Checked in CI with clients nobody here wrote, both on Node ${conformance.nodeVersion.slice(1)} (npm's \`${NODE22}\`), the server on Node ${process.version.slice(1)}:`,
      `the official conformance suite (\`${CONFORMANCE}\`) over Streamable HTTP on 127.0.0.1, and the official`,
      `Inspector in CLI mode (\`${INSPECTOR}\`) over stdio${settings.label ? `, both against ${settings.label}` : ''}.`,
      '',
      `| conformance scenario | ${MODES.map((m) => m.label).join(' | ')} |`,
      `|---|${MODES.map(() => '---').join('|')}|`,
      ...rows.map(
        ([name, byMode]) =>
          `| \`${name}\` | ${MODES.map((m) => (byMode[m.id].status === 'skip' ? ICON.skip : `${ICON[byMode[m.id].status]} (${byMode[m.id].summary})`)).join(' | ')} |`,
      ),
      '',
      ...(notes.length > 0 ? [...notes.map((n) => `- ${n}`), ''] : []),
      '| Inspector CLI over stdio | result |',
      '|---|---|',
      ...checks.map(([label, ok]) => `| ${label} | ${ok ? ICON.pass : ICON.fail} |`),
      '',
    ].join('\n');
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
