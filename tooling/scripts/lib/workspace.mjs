// The workspace's packages: servers, published packages, their bins and workspace closures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './base.mjs';

/**
 * Server packages of a workspace: `packages/server-*` with a package.json. `ready` is false for a
 * folder that is not a server yet (no src/index.ts), so callers can skip it with a note.
 */
export function serverPackages(base = root) {
  const dir = join(base, 'packages');
  return readdirSync(dir)
    .filter((entry) => entry.startsWith('server-') && existsSync(join(dir, entry, 'package.json')))
    .sort()
    .map((entry) => {
      const path = join(dir, entry);
      const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
      return { dir: entry, path, manifest, name: manifest.name, ready: existsSync(join(path, 'src', 'index.ts')) };
    });
}

/** Every workspace package under packages/, by name. */
export function workspacePackages(base = root) {
  const dir = join(base, 'packages');
  const byName = new Map();
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    byName.set(manifest.name, { dir: entry, path: join(dir, entry), manifest });
  }
  return byName;
}

/** The dependency fields that are installed with a package (what a workspace: range there brings along). */
export const RUNTIME_DEP_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies'];

/**
 * The named packages plus every workspace package they reach through `workspace:` ranges in their runtime
 * dependency fields, transitively (`workspace` is `workspacePackages()`).
 */
export function workspaceClosure(names, workspace) {
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

/**
 * Picks server packages from CLI arguments (`server-memory`, `memory`, `packages/server-memory` or
 * `@mcpkit/server-memory`); with none, every ready one. Unknown names throw.
 */
export function selectServers(args, base = root) {
  const all = serverPackages(base);
  if (args.length === 0) return { selected: all.filter((p) => p.ready), skipped: all.filter((p) => !p.ready) };
  const selected = args.map((arg) => {
    const key = arg.replace(/\/$/, '').replace(/^packages\//, '');
    const found = all.find((p) => p.dir === key || p.name === key || p.dir === `server-${key}`);
    if (!found) throw new Error(`no server package matches "${arg}" (have: ${all.map((p) => p.dir).join(', ')})`);
    return found;
  });
  return { selected, skipped: [] };
}

/** `select()`, or, when it throws (a bad command line), its message on stderr and exit code 2. */
export function orExit(tag, select) {
  try {
    return select();
  } catch (error) {
    console.error(`[${tag}] ${error.message}`);
    process.exit(2);
  }
}

/**
 * `selectServers` for a script's command line: an unknown name exits 2 with the reason; folders that are
 * not servers yet are listed as skipped.
 */
export function selectServersOrExit(tag, args) {
  const selection = orExit(tag, () => selectServers(args));
  for (const s of selection.skipped) console.log(`[${tag}] - ${s.dir}: skipped, no src/index.ts yet (not a server package)`);
  return selection;
}

/** The single bin of a server package: [binName, relativePath]. */
export function binOf(manifest) {
  const bin = manifest.bin;
  if (typeof bin === 'string') return [manifest.name.replace(/^@[^/]+\//, ''), bin];
  const entries = Object.entries(bin ?? {});
  if (entries.length === 0) throw new Error(`${manifest.name} declares no bin`);
  return entries[0];
}

/**
 * Servers whose default serverInfo is the reference's, on purpose (a drop-in reports what clients of the
 * reference expect): the version initialize must report instead of the package version.
 */
export const REFERENCE_SERVER_VERSION = {
  '@mcpkit/server-everything': '2.0.0', // the default (current) profile is npm @modelcontextprotocol/server-everything@2026.8.31
};

/**
 * Every published (not private) workspace package under packages/ and apps/, in folder order:
 * `{ name, version, manifest, path, dir, group, server, readme }` (`server`: a packages/server-* folder).
 */
export function publicPackages(base = root) {
  const out = [];
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(base, group)).sort()) {
      const path = join(base, group, dir);
      if (!existsSync(join(path, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
      if (manifest.private) continue;
      const server = group === 'packages' && dir.startsWith('server-');
      out.push({ name: manifest.name, version: manifest.version, manifest, path, dir, group, server, readme: join(path, 'README.md') });
    }
  }
  return out;
}
