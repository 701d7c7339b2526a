#!/usr/bin/env node
// Proves the `npx -y @mcpkit/server-<name>` path works from what would be published, without publishing:
//
//   node tooling/scripts/check-pack.mjs [server ...]      (e.g. sequential-thinking, server-memory)
//
// With no arguments: every packages/server-* that has src/index.ts; a folder without one is not a server yet
// and is skipped with a note. A selected server must be built (CI runs `turbo run build` first): a missing
// dist/ is a failure, not a skip, so an unbuilt server can't pass silently.
//
// For each server and the workspace packages it depends on (workspace:* ranges, transitively):
// 1. `pnpm pack` into a temp dir (pnpm rewrites workspace: ranges and applies publishConfig);
// 2. inspects each tarball: no workspace: range left; nothing outside dist/ but package.json, README, CHANGELOG,
//    LICENSE; README in the tarball and CHANGELOG.md in the package folder (npm never packs it with files: [dist]); every bin/exports/main/types target inside dist/ and in the tarball;
//    bins start with `#!/usr/bin/env node`; every relative import in dist/ resolves inside the tarball and every
//    bare static import is a Node built-in or a declared dependency; servers: bin is mcp-server-<name>;
// 3. `npm install`s all tarballs into an empty temp project (third-party deps from the registry; ours must come
//    from the tarballs: checked in package-lock.json and node_modules);
// 4. starts each bin with `npx --no-install mcp-server-<name>`, sends initialize + tools/list over stdin, and
//    expects serverInfo (version = package version, or the reference's for a drop-in: REFERENCE_SERVER_VERSION), at least one tool, only JSON-RPC on stdout, and exit 0
//    once stdin closes.
// Exits 1 on any failure, naming the package and the problem.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { binOf, createSteps, PNPM, quietEnv, removeTemp, root, run, selectServersOrExit, tail, workspacePackages } from './lib.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { keep: { type: 'boolean' } } });
const { step, conclude } = createSteps('pack');
const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
const RUNTIME_DEP_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];
const ALLOWED_TOP_LEVEL = /^(package\.json|README(\.md)?|CHANGELOG(\.md)?|LICEN[CS]E(\.md|\.txt)?)$/i;
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

const selection = selectServersOrExit('pack', positionals);
if (selection.selected.length === 0) {
  console.error('[pack] no server package to check');
  process.exit(1);
}

const workspace = workspacePackages();
/** The servers plus every workspace package they reach through workspace: ranges. */
function closure(names) {
  const seen = new Map();
  const visit = (name) => {
    if (seen.has(name)) return;
    const pkg = workspace.get(name);
    if (!pkg) throw new Error(`${name} is not a workspace package`);
    seen.set(name, pkg);
    for (const field of RUNTIME_DEP_FIELDS) {
      for (const [dep, range] of Object.entries(pkg.manifest[field] ?? {})) if (String(range).startsWith('workspace:')) visit(dep);
    }
  };
  for (const n of names) visit(n);
  return [...seen.values()];
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
const tarballDir = join(tmp, 'tarballs');
const project = join(tmp, 'project');
mkdirSync(tarballDir);
mkdirSync(project);

function walk(dir, base = dir) {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? walk(p, base) : [relative(base, p).split('\\').join('/')];
  });
}

/** Every string target of an exports map (conditions nested at any depth). */
function exportTargets(exp) {
  if (typeof exp === 'string') return [exp];
  if (exp && typeof exp === 'object') return Object.values(exp).flatMap(exportTargets);
  return [];
}

// Static `import … from '…'`, `export … from '…'`, `import '…'`; dynamic `import('…')`; `require('…')`.
const STATIC_RE = /(?:^|[^\w$.])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"'\n]+)["']/g;
const DYNAMIC_RE = /(?:^|[^\w$.])(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;

function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Inspects one unpacked tarball; returns a list of problems. */
function inspect(pkgRoot, { isServer, sourceDir }) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8'));
  const files = new Set(walk(pkgRoot));
  for (const field of DEP_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).includes('workspace:')) problems.push(`${field}.${dep} is still "${range}"`);
    }
  }
  for (const f of files) {
    if (!f.startsWith('dist/') && !ALLOWED_TOP_LEVEL.test(f)) problems.push(`ships ${f}, outside dist/`);
  }
  if (![...files].some((f) => f.startsWith('dist/'))) problems.push('has no dist/ files');
  if (!files.has('README.md')) problems.push('has no README.md');
  // npm and pnpm never pack a CHANGELOG with `files: ["dist"]`; changesets keeps it in the package folder (and the repo).
  if (!existsSync(join(sourceDir, 'CHANGELOG.md'))) problems.push(`has no CHANGELOG.md in ${relative(root, sourceDir)}`);
  if (manifest.type !== 'module') problems.push(`"type" is ${JSON.stringify(manifest.type)}, not "module"`);
  if (JSON.stringify(manifest.files) !== JSON.stringify(['dist']))
    problems.push(`"files" is ${JSON.stringify(manifest.files)}, not ["dist"]`);

  const targets = [];
  const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
  for (const [name, target] of Object.entries(bins)) targets.push([`bin.${name}`, target]);
  for (const target of exportTargets(manifest.exports)) targets.push(['exports', target]);
  for (const field of ['main', 'module', 'types', 'typings']) if (manifest[field]) targets.push([field, manifest[field]]);
  for (const [where, target] of targets) {
    const file = posix.normalize(target.replace(/^\.\//, ''));
    if (file === 'package.json') continue;
    if (!file.startsWith('dist/')) problems.push(`${where} points outside dist/: ${target}`);
    else if (!files.has(file)) problems.push(`${where} points to ${target}, which is not in the tarball`);
  }
  for (const [name, target] of Object.entries(bins)) {
    const file = posix.normalize(target.replace(/^\.\//, ''));
    if (files.has(file) && !readFileSync(join(pkgRoot, file), 'utf8').startsWith('#!/usr/bin/env node')) {
      problems.push(`bin ${name} (${target}) does not start with #!/usr/bin/env node`);
    }
  }
  if (isServer) {
    const short = manifest.name.replace(/^@mcpkit\/server-/, '');
    if (!bins[`mcp-server-${short}`]) problems.push(`has no bin "mcp-server-${short}" (bins: ${Object.keys(bins).join(', ') || 'none'})`);
  }

  const declared = new Set([manifest.name, ...RUNTIME_DEP_FIELDS.flatMap((f) => Object.keys(manifest[f] ?? {}))]);
  for (const file of [...files].filter((f) => /^dist\/.*\.(m?js|cjs)$/.test(f))) {
    const code = readFileSync(join(pkgRoot, file), 'utf8');
    for (const [re, isStatic] of [
      [STATIC_RE, true],
      [DYNAMIC_RE, false],
    ]) {
      for (const match of code.matchAll(re)) {
        const spec = match[1];
        if (spec.startsWith('.')) {
          const resolved = posix.normalize(posix.join(posix.dirname(file), spec));
          if (!resolved.startsWith('dist/')) problems.push(`${file} imports ${spec}, outside dist/`);
          else if (!files.has(resolved)) problems.push(`${file} imports ${spec}, which is not in the tarball`);
        } else if (isStatic && !builtins.has(spec) && !spec.startsWith('node:') && !declared.has(packageNameOf(spec))) {
          // Only static imports: bundled code keeps guarded `require('optional-dep')` calls that never run.
          problems.push(`${file} imports ${spec}, but ${packageNameOf(spec)} is not a declared dependency`);
        }
      }
    }
  }
  return problems;
}

/** initialize + tools/list over stdio through `npx --no-install <bin>`; resolves to a list of problems. */
/**
 * Servers whose default serverInfo is the reference's, on purpose (a drop-in reports what clients of the
 * reference expect): the version initialize must report instead of the package version.
 */
const REFERENCE_SERVER_VERSION = {
  '@mcpkit/server-everything': '1.0.0', // the legacy profile is npm @modelcontextprotocol/server-everything@2025.11.25
};

function smoke(bin, expectedVersion) {
  return new Promise((resolve) => {
    const problems = [];
    // Its own process group, so a timeout kills the server too and not only the npx wrapper (and its `sh -c`).
    const child = spawn('npx', ['--no-install', bin], { cwd: project, env: quietEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    };
    let stdout = '';
    let stderr = '';
    let buffer = '';
    let initialized = false;
    let listed = false;
    let finished = false;
    const finish = (problem) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (problem) problems.push(problem);
      resolve(problems);
    };
    const timer = setTimeout(() => {
      killGroup();
      const what = !initialized ? 'no answer to initialize' : !listed ? 'no answer to tools/list' : 'still running after stdin closed';
      finish(`${what} within 30 s\n  stdout: ${stdout.slice(0, 2000)}\n  stderr: ${tail(stderr, 30)}`);
    }, 30_000);
    const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        if (!line) continue;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          problems.push(`wrote a non-JSON line to stdout: ${line.slice(0, 200)}`);
          continue;
        }
        if (msg.jsonrpc !== '2.0') problems.push(`wrote a non-JSON-RPC message to stdout: ${line.slice(0, 200)}`);
        if (msg.id === 1) {
          const info = msg.result?.serverInfo;
          if (!info?.name) problems.push(`initialize answered without serverInfo: ${line.slice(0, 500)}`);
          else if (info.version !== expectedVersion) problems.push(`serverInfo.version is ${info.version}, package is ${expectedVersion}`);
          initialized = true;
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (msg.id === 2) {
          listed = true;
          if (!Array.isArray(msg.result?.tools) || msg.result.tools.length === 0) {
            problems.push(`tools/list answered without tools: ${line.slice(0, 500)}`);
          }
          child.stdin.end(); // a stdio server exits 0 when its client goes away
        }
      }
    });
    child.once('exit', (code, signal) => {
      if (!initialized) return finish(`exited (${signal ?? code}) before answering initialize\n  stderr: ${tail(stderr, 30)}`);
      if (code !== 0) return finish(`exited with ${signal ?? code} after stdin closed, expected 0\n  stderr: ${tail(stderr, 30)}`);
      finish();
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpkit-check-pack', version: '0.0.0' } },
    });
  });
}

try {
  const servers = selection.selected;
  const packages = closure(servers.map((s) => s.name));
  const tarballs = new Map();

  for (const pkg of packages) {
    const isServer = servers.some((s) => s.name === pkg.manifest.name);
    const label = pkg.manifest.name;
    const packed = await step(`${label}: pnpm pack`, () => {
      const missing = [...(isServer ? [binOf(pkg.manifest)[1]] : []), 'dist'].filter((f) => !existsSync(join(pkg.path, f)));
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
        console.log(`[pack]   ${relative(tmp, tarballs.get(label))}: ${count} files, no workspace: ranges, everything under dist/`);
        return true;
      }
      return `\n${problems.map((p) => `      - ${p}`).join('\n')}`;
    });
  }

  // Contents problems are reported above; the install and start still run, so one run shows everything.
  if (tarballs.size > 0) {
    const installed = await step(`npm install ${tarballs.size} tarballs into an empty project`, () => {
      writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'mcpkit-pack-check', private: true }, null, 2)}\n`);
      const res = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs.values()], {
        cwd: project,
        timeoutMs: 5 * 60_000,
      });
      if (res.status !== 0) return res;
      // Ours must come from the tarballs, once each, never from the registry.
      const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
      const problems = [];
      for (const [key, entry] of Object.entries(lock.packages ?? {})) {
        const name = key.replace(/^.*node_modules\//, '');
        if (!tarballs.has(name)) continue;
        if (key !== `node_modules/${name}`) problems.push(`${name} installed twice (${key}): a version range does not match the tarball`);
        if (!String(entry.resolved ?? '').startsWith('file:')) problems.push(`${name} resolved to ${entry.resolved ?? 'the registry'}`);
      }
      for (const name of tarballs.keys())
        if (!existsSync(join(project, 'node_modules', name, 'package.json'))) problems.push(`${name} missing`);
      return problems.length === 0 ? true : problems.join('; ');
    });

    if (installed) {
      for (const server of servers) {
        if (!tarballs.has(server.name)) continue;
        const [bin] = binOf(server.manifest);
        await step(`${server.name}: npx --no-install ${bin} answers initialize and tools/list over stdio`, async () => {
          const problems = await smoke(bin, REFERENCE_SERVER_VERSION[server.name] ?? server.manifest.version);
          return problems.length === 0 ? true : problems.join('; ');
        });
      }
    }
  }
} finally {
  removeTemp('pack', tmp, values.keep);
}

conclude(`${selection.selected.map((s) => s.name).join(', ')} start through npx from their packed tarballs`);
