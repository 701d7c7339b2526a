#!/usr/bin/env node
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  binOf,
  createSteps,
  folderSize,
  formatSize,
  mapLimit,
  PNPM,
  REFERENCE_SERVER_VERSION,
  removeTemp,
  run,
  runAsync,
  selectServersOrExit,
  smoke,
  tail,
  workspaceClosure,
  workspacePackages,
} from './lib.mjs';
import { inspect, walk } from './pack/inspect.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { keep: { type: 'boolean' }, 'no-reference': { type: 'boolean' } },
});
const { step, conclude } = createSteps('pack');
const MB = 1e6;

/**
 * Installed size budget per server (npm install of its tarballs into an empty folder, sum of file sizes):
 * what `npx -y` downloads. Measured sizes plus a margin; a new dependency that blows one is a decision
 * to make on purpose (raise the budget here, and say why in the changeset).
 */
// The OAuth hardening (refusals cached by token hash, bounded) gave protocol-core lru-cache: 3.3 MB installed (it
// ships CommonJS, ESM and minified builds with maps), on every server but fetch, which had it already; the budgets
// below grew by that, a cost to win back (a smaller cache, or lru-cache bundled into the bins).
const SIZE_BUDGET = {
  '@mcpkit/server-fetch': 25 * MB, // issue 12's goal; 22.8 MB measured (turndown's domino 7.7 MB, lru-cache 3.3 MB, unpdf 2.0 MB, undici 1.7 MB)
  '@mcpkit/server-git': 17 * MB, // 15.3 MB measured (isomorphic-git 5.2 MB, lru-cache 3.3 MB, undici 1.7 MB)
  '@mcpkit/server-everything': 9 * MB, // 7.9 MB measured (lru-cache 3.3 MB, undici 1.7 MB)
  // SDK v2 and OAuth raised the two smallest: protocol-core brings @mcpkit/net (undici 1.8 MB), jose (0.35 MB) and
  // lru-cache (3.3 MB), and the bin bundles SDK v2 (+0.6 MB). 8.9 and 8.2 MB measured.
  '@mcpkit/server-memory': 10 * MB,
  '@mcpkit/server-sequential-thinking': 9 * MB,
};
/** A server without an entry above (a new one from the template): a bundled bin, protocol-core, net, jose, lru-cache. */
const DEFAULT_BUDGET = 9 * MB;

/** The server each one replaces: an npm package (installed and measured) or a Python one (not measurable here). */
const REFERENCE = {
  '@mcpkit/server-memory': { npm: '@modelcontextprotocol/server-memory' },
  '@mcpkit/server-sequential-thinking': { npm: '@modelcontextprotocol/server-sequential-thinking' },
  '@mcpkit/server-everything': { npm: '@modelcontextprotocol/server-everything' },
  '@mcpkit/server-fetch': { pypi: 'mcp-server-fetch' },
  '@mcpkit/server-git': { pypi: 'mcp-server-git' },
};

const selection = selectServersOrExit('pack', positionals);
if (selection.selected.length === 0) {
  console.error('[pack] no server package to check');
  process.exit(1);
}

const workspace = workspacePackages();
/** The servers plus every workspace package they reach through workspace: ranges. */
const closure = (names) => workspaceClosure(names, workspace);

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
const tarballDir = join(tmp, 'tarballs');
mkdirSync(tarballDir);

/** A new empty npm project under the temp dir. */
function emptyProject(name) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `mcpkit-pack-${name}`, private: true }, null, 2)}\n`);
  return dir;
}

/** `npm install` into `dir`, as a user would (no audit, no fund notices). */
function npmInstall(dir, specs) {
  return runAsync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir, timeoutMs: 5 * 60_000 });
}

/** Ours must come from the tarballs, once each, never from the registry. Returns a list of problems. */
function checkLock(dir, names) {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const problems = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    const name = key.replace(/^.*node_modules\//, '');
    if (!tarballs.has(name)) continue;
    if (key !== `node_modules/${name}`) problems.push(`${name} installed twice (${key}): a version range does not match the tarball`);
    if (!String(entry.resolved ?? '').startsWith('file:')) problems.push(`${name} resolved to ${entry.resolved ?? 'the registry'}`);
  }
  for (const name of names) if (!existsSync(join(dir, 'node_modules', name, 'package.json'))) problems.push(`${name} missing`);
  return problems;
}

/** Installed size of a project: total, package count and the biggest packages. */
function measure(dir) {
  const { total, packages } = folderSize(join(dir, 'node_modules'));
  const biggest = [...packages].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return { total, count: packages.size, biggest };
}

/** The SDK v2 client the library probe connects with. */
const PROBE_CLIENT = '@modelcontextprotocol/client';

// Uses each library entry the way a library user does, with their SDK v2 (`@modelcontextprotocol/server`, the
// optional peer, and `@modelcontextprotocol/client`): run inside the library project. In both protocol eras: a
// 2025-11-25 session over a linked in-memory pair (the client in `legacy` mode), and 2026-07-28 through the
// SDK's `createMcpHandler(factory).fetch` (no socket; one server per request) with the client in `auto` mode.
const LIBRARY_PROBE = `
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
const name = process.argv[2];
const mod = await import(name);
const [factory, create] = Object.entries(mod).find(([k, v]) => /^create\\w*Server$/.test(k) && typeof v === 'function') ?? [];
if (!create) throw new Error(name + ' exports no create*Server function');
const store = typeof mod.createMemoryStore === 'function' ? mod.createMemoryStore() : undefined;
const make = () => create(store ? { store } : {});
const newClient = (mode) => new Client({ name: 'mcpkit-check-pack', version: '0.0.0' }, { versionNegotiation: { mode } });
const listed = async (client, era, version) => {
  if (client.getProtocolEra() !== era) throw new Error(factory + '(): expected the ' + era + ' era, got ' + client.getProtocolEra());
  if (client.getNegotiatedProtocolVersion() !== version)
    throw new Error(factory + '(): negotiated ' + client.getNegotiatedProtocolVersion() + ', expected ' + version);
  const { tools } = await client.listTools();
  if (tools.length === 0) throw new Error(factory + '(): no tools listed in the ' + era + ' era');
  await client.close();
  return tools.length;
};

const server = make();
if (!(server instanceof McpServer)) throw new Error(factory + '() did not return an McpServer of the installed @modelcontextprotocol/server');
const [a, b] = InMemoryTransport.createLinkedPair();
const legacy = newClient('legacy');
await server.connect(a);
await legacy.connect(b);
const legacyTools = await listed(legacy, 'legacy', '2025-11-25');
await server.close();

const handler = createMcpHandler(make);
const modern = newClient('auto');
await modern.connect(new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
  fetch: (url, init) => handler.fetch(new Request(url, init)),
}));
const modernTools = await listed(modern, 'modern', '2026-07-28');
await handler.close();
// The counts may differ by protocol version on purpose (everything's current profile offers its task-based tool to
// 2025 clients only); both must list tools.
console.log(factory + '(): ' + legacyTools + (legacyTools === 1 ? ' tool' : ' tools') + ' in 2025-11-25, ' + modernTools + ' in 2026-07-28');
`;

// Loads the bin's lazy CommonJS chunks (see tsup.server.ts) in a server's own project, where the SDK is not
// installed: today one, cli-lazy-ajv.cjs (the SDK's Node shims, whose Ajv validator must check an elicitation
// reply). An unknown chunk fails, so a new one gets a probe here.
const LAZY_PROBE = `
const { join } = require('node:path');
const { readdirSync } = require('node:fs');
const dist = process.argv[1];
for (const file of readdirSync(dist).filter((f) => /^cli-lazy-.*\\.cjs$/.test(f))) {
  const chunk = require(join(dist, file));
  if (chunk.AjvJsonSchemaValidator) {
    const check = new chunk.AjvJsonSchemaValidator().getValidator({ type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] });
    if (!check({ email: 'a@example.com' }).valid || check({ email: 'nope' }).valid) throw new Error(file + ': Ajv does not validate');
    console.log(file + ': Ajv validates');
  } else {
    throw new Error(file + ': unknown lazy chunk (exports ' + Object.keys(chunk).join(', ') + '): teach check-pack to probe it');
  }
}
`;

const tarballs = new Map();
const servers = selection.selected;
try {
  const packages = closure(servers.map((s) => s.name));

  for (const pkg of packages) {
    const isServer = servers.some((s) => s.name === pkg.manifest.name);
    const label = pkg.manifest.name;
    const packed = await step(`${label}: pnpm pack`, () => {
      const missing = [...(isServer ? [binOf(pkg.manifest)[1], 'dist/index.js'] : []), 'dist'].filter(
        (f) => !existsSync(join(pkg.path, f)),
      );
      if (missing.length > 0) return `not built (${missing.join(', ')} missing): run the build first (pnpm build)`;
      const before = new Set(readdirSync(tarballDir));
      const res = run(PNPM[0], [...PNPM.slice(1), 'pack', '--pack-destination', tarballDir], { cwd: pkg.path });
      if (res.status !== 0) return res;
      const created = readdirSync(tarballDir).filter((f) => !before.has(f) && f.endsWith('.tgz'));
      if (created.length !== 1) return `expected one new tarball, found ${created.length}`;
      tarballs.set(label, join(tarballDir, created[0]));
      return true;
    });
    if (!packed) continue;
    await step(`${label}: tarball contents`, () => {
      const dir = join(tmp, 'unpacked', pkg.dir);
      mkdirSync(dir, { recursive: true });
      const untar = run('tar', ['-xzf', tarballs.get(label), '-C', dir]);
      if (untar.status !== 0) return untar;
      const problems = inspect(join(dir, 'package'), { isServer, sourceDir: pkg.path });
      const count = walk(join(dir, 'package')).length;
      if (problems.length === 0) {
        console.log(
          `[pack]   ${relative(tmp, tarballs.get(label))}: ${formatSize(statSync(tarballs.get(label)).size)}, ${count} files, no workspace: ranges, everything under dist/, the bin imports only its dependencies`,
        );
        return true;
      }
      return `\n${problems.map((p) => `      - ${p}`).join('\n')}`;
    });
  }

  // Contents problems are reported above; the installs and starts still run, so one run shows everything.
  // All installs at once (a few in flight): one project per server, as `npx -y` gets it; the reference
  // servers, once per run; and the library project (all tarballs plus the SDK and zod).
  const packed = servers.filter((s) => tarballs.has(s.name) && closure([s.name]).every((p) => tarballs.has(p.manifest.name)));
  const jobs = packed.map((s) => ({
    kind: 'server',
    server: s,
    dir: emptyProject(s.dir),
    names: closure([s.name]).map((p) => p.manifest.name),
  }));
  const referenceNames = values['no-reference'] ? [] : [...new Set(packed.map((s) => REFERENCE[s.name]?.npm).filter(Boolean))];
  for (const name of referenceNames)
    jobs.push({ kind: 'reference', name, dir: emptyProject(`reference-${name.replace(/^@[^/]+\//, '')}`) });
  // The library user's packages: the optional peers (the SDK v2 server package and zod), plus the SDK v2 client the
  // probe talks to the servers with (the range the servers test with, from their devDependencies).
  // (the peers of every packed package: protocol-core's library entries need theirs too)
  const peers = {};
  for (const { manifest } of closure(packed.map((s) => s.name)))
    for (const [dep, range] of Object.entries(manifest.peerDependencies ?? {})) if (!tarballs.has(dep)) peers[dep] ??= range;
  for (const s of packed) {
    const range = s.manifest.devDependencies?.[PROBE_CLIENT];
    if (range) peers[PROBE_CLIENT] ??= range;
  }
  if (packed.length > 0 && !peers[PROBE_CLIENT])
    await step('library project: a client to probe with', () => `no server declares ${PROBE_CLIENT} in devDependencies`);
  if (packed.length > 0) jobs.push({ kind: 'library', dir: emptyProject('library'), names: [...tarballs.keys()] });

  const started = Date.now();
  const results = await mapLimit(jobs, 4, (job) =>
    npmInstall(
      job.dir,
      job.kind === 'server'
        ? job.names.map((n) => tarballs.get(n))
        : job.kind === 'reference'
          ? [job.name]
          : [...tarballs.values(), ...Object.entries(peers).map(([dep, range]) => `${dep}@${range}`)],
    ),
  );
  console.log(
    `[pack]   ${jobs.length} npm installs (${jobs.filter((j) => j.kind === 'reference').length} of reference servers) in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );

  const reference = new Map();
  jobs.forEach((job, i) => {
    if (job.kind !== 'reference') return;
    const res = results[i];
    if (res.status !== 0) {
      reference.set(job.name, `n/a (npm install failed: ${tail(res.output, 3).trim().split('\n').pop()})`);
      return;
    }
    const version = JSON.parse(readFileSync(join(job.dir, 'node_modules', job.name, 'package.json'), 'utf8')).version;
    const m = measure(job.dir);
    reference.set(job.name, `${job.name}@${version}: ${formatSize(m.total)} (${m.count} packages)`);
  });
  const referenceText = (name) => {
    const ref = REFERENCE[name];
    if (ref?.pypi) return `${ref.pypi}: n/a (PyPI package; not measurable offline)`;
    if (ref?.npm) return reference.get(ref.npm) ?? `${ref.npm}: not measured (--no-reference)`;
    return 'none';
  };

  const sizes = [];
  for (const [i, job] of jobs.entries()) {
    if (job.kind !== 'server') continue;
    const { server } = job;
    const installed = await step(`${server.name}: npm install of its tarballs into an empty project`, () => {
      if (results[i].status !== 0) return results[i];
      const problems = checkLock(job.dir, job.names);
      return problems.length === 0 ? true : problems.join('; ');
    });
    if (!installed) continue;
    const m = measure(job.dir);
    const budget = SIZE_BUDGET[server.name] ?? DEFAULT_BUDGET;
    sizes.push({ server, tarball: statSync(tarballs.get(server.name)).size, ...m, budget });
    await step(`${server.name}: installed size ${formatSize(m.total)} within its budget of ${formatSize(budget)}`, () =>
      m.total <= budget
        ? true
        : `${formatSize(m.total)} installed, over the ${formatSize(budget)} budget (biggest: ${m.biggest.map(([n, b]) => `${n} ${formatSize(b)}`).join(', ')})`,
    );
    const [bin] = binOf(server.manifest);
    await step(`${server.name}: npx --no-install ${bin} answers initialize and tools/list over stdio`, async () => {
      const problems = await smoke(job.dir, ['npx', '--no-install', bin], REFERENCE_SERVER_VERSION[server.name] ?? server.manifest.version);
      return problems.length === 0 ? true : problems.join('; ');
    });
    const dist = join(job.dir, 'node_modules', server.name, 'dist');
    const lazy = existsSync(dist) ? readdirSync(dist).filter((f) => /^cli-lazy-.*\.cjs$/.test(f)) : [];
    if (lazy.length > 0) {
      await step(`${server.name}: the bin's lazy chunks (${lazy.join(', ')}) work with nothing but its dependencies installed`, () =>
        run(process.execPath, ['-e', LAZY_PROBE, dist], { cwd: job.dir, timeoutMs: 60_000 }),
      );
    }
  }

  const libraryIndex = jobs.findIndex((j) => j.kind === 'library');
  if (libraryIndex >= 0) {
    const job = jobs[libraryIndex];
    const ready = await step(
      `library project: npm install of all tarballs plus ${Object.entries(peers)
        .map(([d, r]) => `${d}@${r}`)
        .join(', ')}`,
      () => {
        if (results[libraryIndex].status !== 0) return results[libraryIndex];
        const problems = checkLock(job.dir, job.names);
        return problems.length === 0 ? true : problems.join('; ');
      },
    );
    if (ready) {
      writeFileSync(join(job.dir, 'probe.mjs'), LIBRARY_PROBE);
      for (const server of packed) {
        await step(
          `${server.name}: the library entry works with the user's SDK v2 (instanceof McpServer, tools listed in both eras)`,
          async () => {
            const res = await runAsync(process.execPath, ['probe.mjs', server.name], { cwd: job.dir, timeoutMs: 60_000 });
            if (res.status === 0) console.log(`[pack]   ${res.stdout.trim()}`);
            return res;
          },
        );
      }
    }
  }

  if (sizes.length > 0) {
    console.log(
      '[pack] what `npx -y` downloads: npm install of the packed tarballs into an empty folder, sum of file sizes under node_modules (apparent size)',
    );
    const width = Math.max(...sizes.map((s) => s.server.name.length));
    for (const s of sizes) {
      console.log(
        `[pack]   ${s.server.name.padEnd(width)}  tarball ${formatSize(s.tarball).padStart(7)}  installed ${formatSize(s.total).padStart(8)} (${s.count} packages, budget ${formatSize(s.budget)})  reference ${referenceText(s.server.name)}`,
      );
      console.log(`[pack]   ${''.padEnd(width)}  biggest: ${s.biggest.map(([n, b]) => `${n} ${formatSize(b)}`).join(', ')}`);
    }
  }
} finally {
  removeTemp('pack', tmp, values.keep);
}

conclude(`${selection.selected.map((s) => s.name).join(', ')} start through npx from their packed tarballs, within their size budgets`);
