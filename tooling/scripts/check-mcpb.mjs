#!/usr/bin/env node
// Proves the MCP Bundles (.mcpb, Claude Desktop's one-click install) work as Claude Desktop runs them:
//
//   node tooling/scripts/check-mcpb.mjs [server ...] [--rebuild] [--update] [--keep]
//
// With no arguments: every server package with mcpb/manifest.json. The servers must be built (pnpm build).
// 1. builds the bundles with build-mcpb.mjs, unless dist-mcpb/ holds one newer than its inputs (--rebuild: always);
// 2. for each bundle: `mcpb validate`, `mcpb info` and `mcpb unpack` with the official CLI; the manifest's version is
//    the package's, its entry point is in the bundle, every ${user_config.*} it uses is declared and every setting is
//    used, flags in args take a setting's value, and no native (.node) binary ships (the bundles claim every platform);
// 3. resolves mcp_config with the CLI's own getMcpConfigForManifest (what Claude Desktop runs: ${__dirname},
//    ${user_config.*}, array expansion) for test settings, spawns it over stdio, and does initialize, tools/list and a
//    harmless call per server; the tools must equal the manifest's (--update writes them, and the package version,
//    into packages/server-<name>/mcpb/manifest.json instead), the settings must take effect (memory writes the configured
//    file, git works in the chosen repositories only, fetch sends the configured User-Agent and skips robots.txt,
//    sequential-thinking's log switch, everything's profile), and the server must exit 0 when stdin closes;
// 4. starts each bundle again with its settings left unset and with empty strings, as Claude Desktop passes them
//    (a required one missing: the bundle must not start).
// No network but the registry for the build's `npm install` (fetch talks to a local HTTP server). Exits 1 naming the
// server and the problem; prints the bundle sizes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildBundles, bundlePath, folderSize, formatSize, isFresh, manifestPath, mcpb, selectBundlesOrExit } from './build-mcpb.mjs';
import { createSteps, onJsonLines, quietEnv, removeTemp, root, tail } from './lib.mjs';

const TAG = 'check-mcpb';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rebuild: { type: 'boolean' }, update: { type: 'boolean' }, keep: { type: 'boolean' } },
});
const { step, conclude } = createSteps(TAG);

const servers = selectBundlesOrExit(TAG, positionals);

// The resolver Claude Desktop uses, from the same package as the CLI.
const { getMcpConfigForManifest } = await import(
  pathToFileURL(join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'node.js')).href
);

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-check-mcpb-'));
/** Source manifests rewritten by --update in this run. */
const updated = new Set();
const REQUEST_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 60_000;

/** A stdio JSON-RPC session with a spawned bundle: request(), notify(), close() → exit code, stderr(). */
function startSession(command, args, { env, cwd }) {
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  const pending = new Map();
  const problems = [];
  let stderr = '';
  let nextId = 1;
  let exited;
  const exit = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      for (const { reject } of pending.values()) reject(new Error(`server exited (${signal ?? code}); stderr: ${stderrTail(stderr)}`));
      pending.clear();
      resolve(exited);
    });
  });
  child.once('error', (error) => problems.push(`spawn failed: ${error.message}`));
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  onJsonLines(
    child.stdout,
    (msg) => {
      const waiter = pending.get(msg.id);
      if (waiter && (msg.result !== undefined || msg.error !== undefined)) {
        pending.delete(msg.id);
        if (msg.error) waiter.reject(new Error(`${waiter.method}: JSON-RPC error ${msg.error.code} ${msg.error.message}`));
        else waiter.resolve(msg.result);
      }
    },
    (line) => problems.push(`non-JSON line on stdout: ${line.slice(0, 200)}`),
  );
  const kill = () => {
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {}
  };
  const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  return {
    problems,
    stderr: () => stderr,
    exited: () => exited,
    kill,
    notify: (method, params) => send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }),
    request(method, params) {
      if (exited) return Promise.reject(new Error(`server exited (${exited.signal ?? exited.code}); stderr: ${stderrTail(stderr)}`));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to ${method} within ${REQUEST_TIMEOUT_MS / 1000} s; stderr: ${stderrTail(stderr)}`));
        }, REQUEST_TIMEOUT_MS);
        pending.set(id, {
          method,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
      });
    },
    /** Closes stdin and waits for the exit (killed after 5 s). */
    async close() {
      child.stdin.end();
      const timer = setTimeout(kill, 5000);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The last lines of a server's stderr, on one line. */
const stderrTail = (text, lines = 3) =>
  tail(text, lines)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ') || '(empty)';

const textOf = (result) => (result?.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Calls a tool; returns { isError, text }. */
async function callTool(session, name, args) {
  const result = await session.request('tools/call', { name, arguments: args });
  return { isError: result.isError === true, text: textOf(result) };
}

async function listTools(session) {
  const tools = [];
  let cursor;
  do {
    const page = await session.request('tools/list', cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools.map((t) => ({ name: t.name, description: t.description ?? '' }));
}

/** Differences between the manifest's tools and the server's, as short phrases. */
function toolDiff(declared, live) {
  const byName = new Map(declared.map((t) => [t.name, t]));
  const liveNames = new Set(live.map((t) => t.name));
  const problems = [];
  const missing = live.filter((t) => !byName.has(t.name)).map((t) => t.name);
  const extra = declared.filter((t) => !liveNames.has(t.name)).map((t) => t.name);
  if (missing.length) problems.push(`served but not in the manifest: ${missing.join(', ')}`);
  if (extra.length) problems.push(`in the manifest but not served: ${extra.join(', ')}`);
  const changed = live.filter((t) => byName.has(t.name) && (byName.get(t.name).description ?? '') !== t.description).map((t) => t.name);
  if (changed.length) problems.push(`description differs: ${changed.join(', ')}`);
  return problems;
}

function git(args, cwd) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...quietEnv,
      GIT_AUTHOR_NAME: 'mcpb check',
      GIT_AUTHOR_EMAIL: 'check@example.com',
      GIT_COMMITTER_NAME: 'mcpb check',
      GIT_COMMITTER_EMAIL: 'check@example.com',
    },
  });
}

/** A repository with one commit: the git CLI when there is one, else isomorphic-git from server-git's dependencies. */
async function makeRepo(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'README.md'), `# ${dir}\n`);
  if (git(['--version'], dir).status === 0) {
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', 'README.md'],
      ['commit', '-q', '-m', 'first'],
    ]) {
      const res = git(args, dir);
      if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
    }
    return;
  }
  const entry = join(root, 'packages', 'server-git', 'node_modules', 'isomorphic-git', 'index.cjs');
  const iso = (await import(pathToFileURL(entry).href)).default;
  const fs = await import('node:fs');
  await iso.init({ fs, dir, defaultBranch: 'main' });
  await iso.add({ fs, dir, filepath: 'README.md' });
  await iso.commit({ fs, dir, message: 'first', author: { name: 'mcpb check', email: 'check@example.com' } });
}

/** A local HTTP server for fetch: a page, and a robots.txt that disallows everything. Records the requests. */
async function startPageServer() {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url, userAgent: req.headers['user-agent'] });
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /\n');
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html><head><title>mcpb check</title></head><body><main><h1>MCPB check page</h1><p>Served locally to the fetch bundle.</p></main></body></html>',
      );
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

/**
 * Per server: the settings of the configured run, what to do with it (returns problems), and what to check when the
 * settings are left unset (`unset`, optional; both called as (session, tools, ctx)). `toolsDiffer`: the configured run serves other tools than the manifest's.
 */
const SCENARIOS = {
  'server-everything': {
    toolsDiffer: true,
    config: () => ({ profile: 'legacy' }),
    async exercise(session, tools) {
      const problems = [];
      if (!tools.some((t) => t.name === 'printEnv')) problems.push('profile "legacy" did not take effect: no camelCase printEnv listed');
      const echo = tools.find((t) => t.name === 'echo');
      if (echo) {
        const r = await callTool(session, 'echo', { message: 'mcpb check' });
        if (r.isError || !r.text.includes('mcpb check')) problems.push(`echo answered ${JSON.stringify(r).slice(0, 200)}`);
      }
      return problems;
    },
    async unset(session) {
      const r = await callTool(session, 'echo', { message: 'mcpb check' });
      return r.isError || !r.text.includes('mcpb check') ? [`echo answered ${JSON.stringify(r).slice(0, 200)}`] : [];
    },
  },
  'server-fetch': {
    async setup(ctx) {
      ctx.pages = await startPageServer();
      ctx.cleanup.push(() => ctx.pages.close());
    },
    config: () => ({ user_agent: 'mcpkit-mcpb-check/1.0', ignore_robots_txt: true, allow_private_network: true }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      ctx.pages.requests.length = 0;
      const r = await callTool(session, 'fetch', { url: `${ctx.pages.url}/page` });
      if (r.isError || !r.text.includes('MCPB check page'))
        problems.push(`fetch of the local page answered ${JSON.stringify(r).slice(0, 300)}`);
      const page = ctx.pages.requests.find((q) => q.url === '/page');
      if (!page) problems.push('the local page was never requested (allow_private_network did not take effect?)');
      else if (page.userAgent !== 'mcpkit-mcpb-check/1.0') problems.push(`user_agent did not take effect: sent "${page.userAgent}"`);
      if (ctx.pages.requests.some((q) => q.url === '/robots.txt'))
        problems.push('ignore_robots_txt did not take effect: robots.txt was requested');
      return problems;
    },
    // Left unset, the settings must fall back to the server's defaults, not to the placeholder text: the default agent,
    // and robots.txt respected (it disallows everything here). allow_private_network stays on to reach the local server.
    unsetConfig: { allow_private_network: true },
    async unset(session, _tools, ctx) {
      ctx.pages.requests.length = 0;
      const r = await callTool(session, 'fetch', { url: `${ctx.pages.url}/page` });
      const problems = [];
      const robots = ctx.pages.requests.find((q) => q.url === '/robots.txt');
      if (!robots) problems.push(`robots.txt was not checked (requests: ${ctx.pages.requests.map((q) => q.url).join(', ') || 'none'})`);
      else if (!/ModelContextProtocol/.test(robots.userAgent ?? ''))
        problems.push(`the default User-Agent was not used: sent "${robots.userAgent}"`);
      if (!r.isError || ctx.pages.requests.some((q) => q.url === '/page')) problems.push('a page disallowed by robots.txt was fetched');
      return problems;
    },
  },
  'server-git': {
    async setup(ctx) {
      ctx.repos = [join(ctx.dir, 'repo-a'), join(ctx.dir, 'repo-b')];
      ctx.outside = join(ctx.dir, 'repo-outside');
      for (const dir of [...ctx.repos, ctx.outside]) await makeRepo(dir);
    },
    config: (ctx) => ({ repositories: ctx.repos }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      for (const repo of ctx.repos) {
        const r = await callTool(session, 'git_status', { repo_path: repo });
        if (r.isError || !/main/.test(r.text))
          problems.push(`git_status in configured ${relative(ctx.dir, repo)} answered ${JSON.stringify(r).slice(0, 300)}`);
      }
      const r = await callTool(session, 'git_status', { repo_path: ctx.outside });
      if (!r.isError) problems.push(`repositories did not take effect: git_status outside them succeeded (${r.text.slice(0, 200)})`);
      return problems;
    },
  },
  'server-memory': {
    config: (ctx) => ({ memory_file_path: join(ctx.dir, 'chosen', 'nested', 'memory.jsonl') }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      const created = await callTool(session, 'create_entities', {
        entities: [{ name: 'mcpb-check', entityType: 'test', observations: ['written through the bundle'] }],
      });
      if (created.isError) problems.push(`create_entities answered ${created.text.slice(0, 300)}`);
      const graph = await callTool(session, 'read_graph', {});
      if (graph.isError || !graph.text.includes('mcpb-check')) problems.push(`read_graph answered ${graph.text.slice(0, 300)}`);
      ctx.afterExit = () => {
        const file = join(ctx.dir, 'chosen', 'nested', 'memory.jsonl');
        const written = [file, `${file}.wal`].filter(existsSync).map((f) => readFileSync(f, 'utf8'));
        return written.some((t) => t.includes('mcpb-check'))
          ? []
          : [`memory_file_path did not take effect: nothing written to ${relative(ctx.dir, file)}`];
      };
      return problems;
    },
    // Unset, the file must be the server's default one (in the test HOME), not the placeholder text.
    async unset(session, _tools, ctx) {
      const created = await callTool(session, 'create_entities', {
        entities: [{ name: 'mcpb-default', entityType: 'test', observations: ['written to the default file'] }],
      });
      if (created.isError) return [`create_entities answered ${created.text.slice(0, 300)}`];
      ctx.afterExit = () => {
        const home = join(ctx.dir, 'home');
        const data =
          process.platform === 'win32'
            ? join(home, 'AppData', 'Roaming')
            : process.platform === 'darwin'
              ? join(home, 'Library', 'Application Support')
              : join(home, '.local', 'share');
        const file = join(data, 'mcpkit-memory', 'memory.jsonl');
        const written = [file, `${file}.wal`].filter(existsSync).map((f) => readFileSync(f, 'utf8'));
        return written.some((t) => t.includes('mcpb-default')) ? [] : [`nothing written to the default file ${relative(ctx.dir, file)}`];
      };
      return [];
    },
  },
  'server-sequential-thinking': {
    config: () => ({ disable_thought_logging: true }),
    thought: { thought: 'MCPB-CHECK-THOUGHT', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
    async exercise(session) {
      const r = await callTool(session, 'sequentialthinking', this.thought);
      const problems = [];
      if (r.isError) problems.push(`sequentialthinking answered ${r.text.slice(0, 300)}`);
      await new Promise((res) => setTimeout(res, 200));
      if (session.stderr().includes('MCPB-CHECK-THOUGHT'))
        problems.push('disable_thought_logging did not take effect: the thought is on stderr');
      return problems;
    },
    async unset(session) {
      const r = await callTool(session, 'sequentialthinking', this.thought);
      await new Promise((res) => setTimeout(res, 200));
      if (r.isError) return [`sequentialthinking answered ${r.text.slice(0, 300)}`];
      return session.stderr().includes('MCPB-CHECK-THOUGHT') ? [] : ['with default settings the thought is not logged on stderr'];
    },
  },
};

/** Static checks of an unpacked bundle's manifest. */
function inspectBundle(dir, server) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  if (manifest.version !== server.manifest.version)
    problems.push(`version ${manifest.version}, package.json has ${server.manifest.version}`);
  if (manifest.license !== server.manifest.license)
    problems.push(`license ${manifest.license}, package.json has ${server.manifest.license}`);
  const { server: srv, user_config: settings = {} } = manifest;
  if (srv.type !== 'node') problems.push(`server.type is ${srv.type}, not node`);
  if (!existsSync(join(dir, srv.entry_point))) problems.push(`entry_point ${srv.entry_point} is not in the bundle`);
  const cfg = srv.mcp_config;
  if (cfg.command !== 'node') problems.push(`mcp_config.command is ${cfg.command}, not node`);
  if (cfg.args?.[0] !== `\${__dirname}/${srv.entry_point}`)
    problems.push(`mcp_config.args[0] is ${cfg.args?.[0]}, not \${__dirname}/${srv.entry_point}`);
  const used = new Set();
  for (const text of [...(cfg.args ?? []), ...Object.values(cfg.env ?? {})]) {
    for (const m of text.matchAll(/\$\{user_config\.([^}]+)\}/g)) {
      used.add(m[1]);
      if (!settings[m[1]]) problems.push(`mcp_config uses \${user_config.${m[1]}}, which user_config does not declare`);
    }
  }
  for (const key of Object.keys(settings)) if (!used.has(key)) problems.push(`user_config.${key} is not used by mcp_config`);
  (cfg.args ?? []).slice(1).forEach((arg, i, rest) => {
    // The launcher expects every flag in args to take a setting's value (switches go through env).
    if (arg.startsWith('--') && !/^\$\{user_config\.[^}]+\}$/.test(rest[i + 1] ?? ''))
      problems.push(`mcp_config.args: ${arg} is not followed by a \${user_config.*} value`);
  });
  for (const [key, spec] of Object.entries(settings)) {
    if (spec.type === 'boolean' && (cfg.args ?? []).includes(`\${user_config.${key}}`))
      problems.push(`boolean user_config.${key} is passed in args; use env`);
    if (spec.multiple && Object.values(cfg.env ?? {}).some((v) => v.includes(`\${user_config.${key}}`)))
      problems.push(`user_config.${key} has multiple: true but is used in env, where Claude Desktop does not expand arrays`);
  }
  const natives = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.node')) natives.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  if (natives.length) problems.push(`ships native binaries (built for this platform only): ${natives.slice(0, 5).join(', ')}`);
  return { manifest, problems };
}

/** Resolves mcp_config as Claude Desktop would and runs one session; returns problems. */
async function runBundle({ dir, manifest, server, userConfig, scenario, ctx, label, exercise, compareTools }) {
  const home = join(ctx.dir, 'home');
  const systemDirs = { HOME: home, DESKTOP: join(home, 'Desktop'), DOCUMENTS: join(home, 'Documents'), DOWNLOADS: join(home, 'Downloads') };
  const resolved = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs, userConfig, pathSeparator: sep });
  if (!resolved) return ['getMcpConfigForManifest resolved nothing (a required setting missing?)'];
  const cwd = mkdtempSync(join(ctx.dir, 'cwd-'));
  const env = {
    ...quietEnv,
    HOME: home,
    USERPROFILE: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    APPDATA: join(home, 'AppData', 'Roaming'),
    ...resolved.env,
  };
  // Claude Desktop runs `node` with its own Node.js; this one is ours.
  const command = resolved.command === 'node' ? process.execPath : resolved.command;
  const session = startSession(command, resolved.args ?? [], { env, cwd });
  const problems = [];
  const deadline = setTimeout(session.kill, RUN_TIMEOUT_MS);
  try {
    const init = await session.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'mcpkit-check-mcpb', version: '0.0.0' },
    });
    if (!init?.serverInfo?.name) problems.push(`initialize answered without serverInfo: ${JSON.stringify(init).slice(0, 300)}`);
    session.notify('notifications/initialized');
    const tools = await listTools(session);
    if (tools.length === 0) problems.push('tools/list is empty');
    if (compareTools) {
      const diff = toolDiff(manifest.tools ?? [], tools);
      if (diff.length > 0) {
        if (!values.update) {
          problems.push(`manifest tools differ from tools/list (${diff.join('; ')}): run node tooling/scripts/check-mcpb.mjs --update`);
        } else if (!updated.has(server.name)) {
          const file = manifestPath(server);
          const source = JSON.parse(readFileSync(file, 'utf8'));
          source.tools = tools;
          source.version = server.manifest.version;
          writeFileSync(file, `${JSON.stringify(source, null, 2)}\n`);
          updated.add(server.name);
          console.log(`[${TAG}]   ${relative(root, file)}: tools updated (${diff.join('; ')}); run again to check the rebuilt bundle`);
        }
      }
    } else if (!toolDiff(manifest.tools ?? [], tools).length) {
      problems.push("the settings should change the tools, yet they equal the manifest's");
    }
    if (exercise) problems.push(...(await exercise.call(scenario, session, tools, ctx)));
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  const early = session.exited();
  const { code, signal } = await session.close();
  clearTimeout(deadline);
  if (early) {
    if (!problems.some((p) => p.startsWith('server exited')))
      problems.push(`server exited (${early.signal ?? early.code}) before stdin closed`);
  } else if (code !== 0)
    problems.push(`exited with ${signal ?? code} after stdin closed, expected 0; stderr: ${stderrTail(session.stderr())}`);
  problems.push(...session.problems);
  if (ctx.afterExit) {
    problems.push(...ctx.afterExit());
    ctx.afterExit = undefined;
  }
  const stray = readdirSync(cwd).filter((f) => f.includes('${'));
  if (stray.length) problems.push(`an unresolved setting became a file: ${stray.join(', ')}`);
  return problems.map((p) => `${label} run: ${p}`);
}

try {
  const stale = values.rebuild ? servers : servers.filter((s) => !isFresh(s));
  if (stale.length > 0) {
    console.log(
      `[${TAG}] building ${stale.map((s) => s.dir).join(', ')} (${values.rebuild ? '--rebuild' : 'missing or older than their inputs'})`,
    );
    await buildBundles(stale, { step, tag: TAG, keep: values.keep });
  } else console.log(`[${TAG}] dist-mcpb/ is up to date for ${servers.map((s) => s.dir).join(', ')}`);

  const sizes = [];
  for (const server of servers) {
    const file = bundlePath(server);
    const label = server.dir;
    if (!existsSync(file)) {
      await step(`${label}: bundle`, () => `${relative(root, file)} was not built`);
      continue;
    }
    const dir = join(tmp, 'unpacked', server.dir);
    const unpacked = await step(`${label}: mcpb info and unpack`, () => {
      const info = mcpb(['info', file]);
      if (info.status !== 0) return info;
      const res = mcpb(['unpack', file, dir]);
      if (res.status !== 0) return res;
      return existsSync(join(dir, 'manifest.json')) ? true : 'no manifest.json in the bundle';
    });
    if (!unpacked) continue;
    sizes.push(`${relative(root, file)} ${formatSize(statSync(file).size)} (unpacked ${formatSize(folderSize(dir))})`);
    await step(`${label}: mcpb validate (bundled manifest)`, () => mcpb(['validate', join(dir, 'manifest.json')]));
    let manifest;
    await step(`${label}: manifest matches the package and the launcher's rules`, () => {
      const inspected = inspectBundle(dir, server);
      manifest = inspected.manifest;
      return inspected.problems.length ? inspected.problems.join('; ') : true;
    });
    if (!manifest) continue;

    const scenario = SCENARIOS[server.dir];
    if (!scenario) {
      await step(`${label}: runs over stdio`, () => `no scenario in check-mcpb.mjs for ${server.dir}: add one`);
      continue;
    }
    const ctx = { dir: mkdtempSync(join(tmp, `${server.dir}-`)), cleanup: [] };
    try {
      await scenario.setup?.(ctx);
      const settings = scenario.config(ctx);
      await step(
        `${label}: starts over stdio with settings ${JSON.stringify(settings).replaceAll(ctx.dir, '<tmp>')}; tools, settings in effect`,
        async () => {
          const problems = await runBundle({
            dir,
            manifest,
            server,
            userConfig: settings,
            scenario,
            ctx,
            label: 'configured',
            exercise: scenario.exercise,
            compareTools: !scenario.toolsDiffer,
          });
          return problems.length ? problems.join('; ') : true;
        },
      );
      const required = Object.entries(manifest.user_config ?? {}).filter(([, spec]) => spec.required);
      if (required.length > 0) {
        await step(`${label}: not started while required ${required.map(([k]) => k).join(', ')} unset`, async () => {
          const home = join(ctx.dir, 'home');
          const resolved = await getMcpConfigForManifest({
            manifest,
            extensionPath: dir,
            systemDirs: { HOME: home },
            userConfig: {},
            pathSeparator: sep,
          });
          return resolved === undefined ? true : `resolved to ${JSON.stringify(resolved).slice(0, 300)}`;
        });
        continue;
      }
      // Settings left alone: missing (the placeholder stays) and empty strings (what a cleared field gives).
      const empties = Object.fromEntries(
        Object.entries(manifest.user_config ?? {})
          .filter(([, spec]) => spec.type === 'string' || spec.type === 'file' || spec.type === 'directory')
          .map(([key, spec]) => [key, spec.multiple ? [] : '']),
      );
      for (const [what, userConfig] of [
        ['unset', { ...scenario.unsetConfig }],
        ['empty', { ...empties, ...scenario.unsetConfig }],
      ]) {
        const kept = scenario.unsetConfig ? ` but ${Object.keys(scenario.unsetConfig).join(', ')}` : '';
        await step(`${label}: starts with settings ${what}${kept} (server defaults)`, async () => {
          const problems = await runBundle({
            dir,
            manifest,
            server,
            userConfig,
            scenario,
            ctx,
            label: what,
            exercise: scenario.unset,
            compareTools: true,
          });
          return problems.length ? problems.join('; ') : true;
        });
      }
    } catch (error) {
      await step(`${label}: scenario`, () => (error instanceof Error ? error.message : String(error)));
    } finally {
      for (const fn of ctx.cleanup) await fn();
    }
  }
  for (const line of sizes) console.log(`[${TAG}]   ${line}`);
} finally {
  removeTemp(TAG, tmp, values.keep);
}

conclude(`${servers.map((s) => s.dir).join(', ')}: bundles validate, unpack and run over stdio as Claude Desktop starts them`);
