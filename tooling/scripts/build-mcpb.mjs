#!/usr/bin/env node
// Builds MCP Bundles (.mcpb, one-click install in Claude Desktop) into dist-mcpb/:
//
//   node tooling/scripts/build-mcpb.mjs [server ...] [--keep]      (pnpm bundle; e.g. git, server-memory)
//
// With no arguments: every server package that has mcpb/manifest.json. The servers must be built (pnpm build).
// For each server:
// 1. `pnpm pack` it and the workspace packages it depends on (as check-pack.mjs does: workspace: ranges rewritten);
// 2. stages <server>/manifest.json (packages/server-<name>/mcpb/manifest.json, version stamped from package.json),
//    server/launch.mjs (build-mcpb.launcher.mjs: adapts Claude Desktop's user_config substitution to the flags) and
//    server/node_modules from `npm install --omit=dev --omit=optional` of the tarballs (ours from the tarballs, third-
//    party from the registry; optional deps left out: they are native binaries for the build machine's platform only);
// 3. `mcpb validate` and `mcpb pack` (the official @anthropic-ai/mcpb CLI) → dist-mcpb/mcpkit-server-<name>-<version>.mcpb.
// The manifest's tools are checked against the running bundle by check-mcpb.mjs (--update rewrites them).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { binOf, createSteps, orExit, PNPM, removeTemp, root, run, selectServers, workspaceClosure, workspacePackages } from './lib.mjs';

export const OUT_DIR = join(root, 'dist-mcpb');
export const LAUNCHER = fileURLToPath(new URL('./build-mcpb.launcher.mjs', import.meta.url));

/** The official CLI from the root devDependency: [node, cli.js]. */
export function mcpbCli() {
  // Its exports map hides package.json from require.resolve: the root devDependency's folder.
  const pkgFile = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'package.json');
  if (!existsSync(pkgFile)) throw new Error('@anthropic-ai/mcpb is not installed (a root devDependency: pnpm install)');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0];
  return [process.execPath, join(pkgFile, '..', bin)];
}

export function mcpb(args, options) {
  const [cmd, cli] = mcpbCli();
  return run(cmd, [cli, ...args], options);
}

/** Source manifest of a server package, or undefined when it has no bundle. */
export function manifestPath(server) {
  const file = join(server.path, 'mcpb', 'manifest.json');
  return existsSync(file) ? file : undefined;
}

/** The bundle file of a server (name and version from its manifest and package.json). */
export function bundlePath(server) {
  const manifest = JSON.parse(readFileSync(manifestPath(server), 'utf8'));
  return join(OUT_DIR, `${manifest.name}-${server.manifest.version}.mcpb`);
}

/**
 * Servers from command-line names (as the other checks take them), or every one with mcpb/manifest.json. A named server
 * without a manifest is an error.
 */
function selectBundles(args) {
  const { selected } = selectServers(args);
  if (args.length > 0) {
    const missing = selected.filter((s) => !manifestPath(s));
    if (missing.length > 0) throw new Error(`no mcpb/manifest.json in ${missing.map((s) => s.dir).join(', ')}`);
    return selected;
  }
  return selected.filter((s) => manifestPath(s));
}

/** `selectBundles` for a script's command line: a bad name exits 2 with the reason, no bundle at all exits 1. */
export function selectBundlesOrExit(tag, args) {
  const servers = orExit(tag, () => selectBundles(args));
  if (servers.length === 0) {
    console.error(`[${tag}] no server package has mcpb/manifest.json`);
    process.exit(1);
  }
  return servers;
}

/** The server plus every workspace package it reaches through workspace: ranges. */
const closure = (name, workspace) => workspaceClosure([name], workspace);

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((e) => newestMtime(join(path, e))));
}

/**
 * Whether a server's bundle is newer than everything it is made of: its manifest, the launcher, and the dist/ and
 * package.json of the server and of its workspace dependencies.
 */
export function isFresh(server, workspace = workspacePackages()) {
  const file = bundlePath(server);
  if (!existsSync(file)) return false;
  const inputs = [manifestPath(server), LAUNCHER, fileURLToPath(import.meta.url)];
  for (const pkg of closure(server.name, workspace)) inputs.push(join(pkg.path, 'dist'), join(pkg.path, 'package.json'));
  return statSync(file).mtimeMs > Math.max(...inputs.map(newestMtime));
}

export function formatSize(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`;
}

/** Total size of the files under a folder. */
export function folderSize(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, e) => sum + folderSize(join(path, e)), 0);
}

/**
 * Builds the bundles of `servers` with the step runner `step` (from createSteps); returns Map(server.name → .mcpb path)
 * of those that were built.
 */
export async function buildBundles(servers, { step, tag, keep = false }) {
  const workspace = workspacePackages();
  const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-mcpb-'));
  const tarballDir = join(tmp, 'tarballs');
  mkdirSync(tarballDir);
  mkdirSync(OUT_DIR, { recursive: true });
  const tarballs = new Map();
  const built = new Map();

  const pack = (pkg) =>
    step(`${pkg.manifest.name}: pnpm pack`, () => {
      if (!existsSync(join(pkg.path, 'dist'))) return 'not built (dist/ missing): run the build first (pnpm build)';
      const before = new Set(readdirSync(tarballDir));
      const res = run(PNPM[0], [...PNPM.slice(1), 'pack', '--pack-destination', tarballDir], { cwd: pkg.path });
      if (res.status !== 0) return res;
      const created = readdirSync(tarballDir).filter((f) => !before.has(f) && f.endsWith('.tgz'));
      if (created.length !== 1) return `expected one new tarball, found ${created.length}`;
      tarballs.set(pkg.manifest.name, join(tarballDir, created[0]));
      return true;
    });

  try {
    for (const server of servers) {
      const label = server.name;
      // A failed build must not leave the previous bundle behind for the check to test.
      rmSync(bundlePath(server), { force: true });
      const packages = closure(server.name, workspace);
      let packed = true;
      for (const pkg of packages) if (!tarballs.has(pkg.manifest.name)) packed = (await pack(pkg)) && packed;
      if (!packed) continue;

      const stage = join(tmp, 'stage', server.dir);
      const serverDir = join(stage, 'server');
      const staged = await step(`${label}: stage manifest, launcher and npm install --omit=dev`, () => {
        if (!existsSync(join(server.path, binOf(server.manifest)[1]))) return 'not built (bin missing): run the build first (pnpm build)';
        mkdirSync(serverDir, { recursive: true });
        const manifest = JSON.parse(readFileSync(manifestPath(server), 'utf8'));
        manifest.version = server.manifest.version;
        writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
        const license = [join(server.path, 'LICENSE'), join(root, 'LICENSE')].find(existsSync);
        if (license) copyFileSync(license, join(stage, 'LICENSE'));

        writeFileSync(join(serverDir, 'package.json'), `${JSON.stringify({ name: `${manifest.name}-bundle`, private: true }, null, 2)}\n`);
        const ours = packages.map((p) => tarballs.get(p.manifest.name));
        const res = run('npm', ['install', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund', '--loglevel=error', ...ours], {
          cwd: serverDir,
          timeoutMs: 5 * 60_000,
        });
        if (res.status !== 0) return res;
        // Ours must come from the tarballs, once each.
        const problems = [];
        for (const pkg of packages) {
          const installed = join(serverDir, 'node_modules', pkg.manifest.name, 'package.json');
          if (!existsSync(installed)) problems.push(`${pkg.manifest.name} missing from node_modules`);
          else if (JSON.parse(readFileSync(installed, 'utf8')).version !== pkg.manifest.version)
            problems.push(`${pkg.manifest.name} in node_modules is not the packed version`);
        }
        const lock = JSON.parse(readFileSync(join(serverDir, 'package-lock.json'), 'utf8'));
        for (const [key, entry] of Object.entries(lock.packages ?? {})) {
          const name = key.replace(/^.*node_modules\//, '');
          if (workspace.has(name) && !String(entry.resolved ?? '').startsWith('file:'))
            problems.push(`${key} resolved to ${entry.resolved ?? 'the registry'}`);
        }
        if (problems.length > 0) return problems.join('; ');
        // No file: paths of this machine in the bundle: a plain package.json, no lockfiles.
        const deps = Object.fromEntries(packages.slice(0, 1).map((p) => [p.manifest.name, p.manifest.version]));
        const bundlePkg = {
          name: `${manifest.name}-bundle`,
          version: server.manifest.version,
          private: true,
          type: 'module',
          dependencies: deps,
        };
        writeFileSync(join(serverDir, 'package.json'), `${JSON.stringify(bundlePkg, null, 2)}\n`);
        rmSync(join(serverDir, 'package-lock.json'), { force: true });
        rmSync(join(serverDir, 'node_modules', '.package-lock.json'), { force: true });

        const bin = `./node_modules/${server.name}/${binOf(server.manifest)[1].replace(/^\.\//, '')}`;
        const launcher = readFileSync(LAUNCHER, 'utf8').replace("'__BIN__'", JSON.stringify(bin).replaceAll('"', "'"));
        if (!launcher.includes(bin)) return 'could not fill BIN in the launcher';
        writeFileSync(join(serverDir, 'launch.mjs'), launcher);
        const entry = join(stage, manifest.server.entry_point);
        if (!existsSync(entry)) return `entry_point ${manifest.server.entry_point} is not in the bundle`;
        return true;
      });
      if (!staged) continue;

      await step(`${label}: mcpb validate`, () => mcpb(['validate', join(stage, 'manifest.json')]));
      const out = bundlePath(server);
      await step(`${label}: mcpb pack → ${relative(root, out)}`, () => {
        rmSync(out, { force: true });
        const res = mcpb(['pack', stage, out]);
        if (res.status !== 0) return res;
        if (!existsSync(out)) return `${relative(root, out)} was not written`;
        built.set(server.name, out);
        console.log(
          `[${tag}]   ${relative(root, out)}: ${formatSize(statSync(out).size)} (staged ${formatSize(folderSize(stage))}, before mcpb's exclusions)`,
        );
        return true;
      });
    }
  } finally {
    removeTemp(tag, tmp, keep);
  }
  return built;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { keep: { type: 'boolean' } } });
  const servers = selectBundlesOrExit('mcpb', positionals);
  const { step, conclude } = createSteps('mcpb');
  const built = await buildBundles(servers, { step, tag: 'mcpb', keep: values.keep });
  conclude(`${built.size} bundle(s) in ${relative(root, OUT_DIR)}/: ${[...built.values()].map((f) => relative(OUT_DIR, f)).join(', ')}`);
}
