#!/usr/bin/env node
// Publishes every public workspace package whose version the registry does not have yet, dependencies first:
//   1. `pnpm pack` (only pnpm turns `workspace:` ranges into versions and applies `publishConfig`, the tarball
//      check-pack.mjs installs on every CI run);
//   2. `npm publish <tarball>`: npm's own client, so that in GitHub Actions npm trusted publishing (OIDC, no token)
//      and provenance work (`--provenance`; pnpm signs provenance but cannot mint the OIDC credential);
//   3. a git tag `<name>@<version>` and the line `New tag: <name>@<version>`, which changesets/action reads to
//      create the GitHub releases (the same line `changeset publish` prints).
// `pnpm release` runs it after the checks and the tests; tooling/scripts/check-release.mjs runs it against a
// loopback registry on every CI run.
//
//   node tooling/scripts/publish.mjs [--registry URL] [--provenance] [--no-git-tag] [--dry-run]
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PNPM, publicPackages, quietEnv, RUNTIME_DEP_FIELDS, removeTemp, root, run } from './lib.mjs';

const { values: args } = parseArgs({
  options: {
    registry: { type: 'string' },
    provenance: { type: 'boolean', default: false },
    'no-git-tag': { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
  },
});

/** Public workspace packages (packages/* and apps/*), each after the workspace packages it depends on. */
export function publishOrder(base = root) {
  const byName = new Map(publicPackages(base).map((p) => [p.name, p]));
  const order = [];
  const seen = new Set();
  const visit = (name, chain = []) => {
    if (seen.has(name)) return;
    if (chain.includes(name)) throw new Error(`workspace dependency cycle: ${[...chain, name].join(' -> ')}`);
    const pkg = byName.get(name);
    for (const field of RUNTIME_DEP_FIELDS)
      for (const dep of Object.keys(pkg.manifest[field] ?? {})) if (byName.has(dep)) visit(dep, [...chain, name]);
    seen.add(name);
    order.push(pkg);
  };
  for (const name of [...byName.keys()].sort()) visit(name);
  return order;
}

const registryArgs = args.registry ? ['--registry', args.registry] : [];
const env = { ...quietEnv, ...(args.registry ? { npm_config_registry: args.registry } : {}) };

function published(name, version) {
  const res = run('npm', ['view', `${name}@${version}`, 'version', ...registryArgs], { env, timeoutMs: 60_000 });
  if (res.status === 0) return res.stdout.trim() === version;
  if (/E404|404 Not Found|is not in this registry/.test(res.output)) return false;
  throw new Error(`npm view ${name}@${version} failed: ${res.output.trim().split('\n').slice(-3).join(' | ')}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-publish-'));
let failed = false;
try {
  for (const { path, manifest } of publishOrder()) {
    const id = `${manifest.name}@${manifest.version}`;
    if (manifest.version === '0.0.0') {
      console.log(`[publish] ${id}: skipped (never versioned: run pnpm version-packages first)`);
      continue;
    }
    if (published(manifest.name, manifest.version)) {
      console.log(`[publish] ${id}: already on the registry`);
      continue;
    }
    const packDir = mkdtempSync(join(tmp, 'pack-'));
    const pack = run(PNPM[0], [...PNPM.slice(1), 'pack', '--pack-destination', packDir], { cwd: path, env });
    const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
    if (pack.status !== 0 || !tarball) {
      console.error(`[publish] ${id}: pnpm pack failed\n${pack.output}`);
      failed = true;
      break;
    }
    const publishArgs = ['publish', join(packDir, tarball), '--access', 'public', ...registryArgs];
    if (args.provenance) publishArgs.push('--provenance');
    if (args['dry-run']) publishArgs.push('--dry-run');
    const res = run('npm', publishArgs, { env, timeoutMs: 5 * 60_000 });
    if (res.status !== 0) {
      console.error(`[publish] ${id}: npm publish failed\n${res.output}`);
      failed = true;
      break;
    }
    console.log(`[publish] ${id}: published${args.provenance ? ' with provenance' : ''}${args['dry-run'] ? ' (dry run)' : ''}`);
    if (!args['dry-run'] && !args['no-git-tag']) {
      const tag = run('git', ['tag', id], { env });
      if (tag.status !== 0 && !/already exists/.test(tag.output)) console.error(`[publish] ${id}: git tag failed: ${tag.output.trim()}`);
    }
    console.log(`New tag: ${id}`);
  }
} finally {
  removeTemp('publish', tmp, false);
}
if (failed) process.exit(1);
