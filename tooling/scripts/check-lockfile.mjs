#!/usr/bin/env node
// Checks that pnpm-lock.yaml is complete for every platform, so that the README's
// `pnpm install --frozen-lockfile` gets turbo's, Biome's, esbuild's and Rollup's native binaries on macOS and
// Windows too, and a plain `pnpm install` there does not rewrite the lockfile.
//
//   node tooling/scripts/check-lockfile.mjs        (pnpm check:lockfile)
//
// Those binaries are optional dependencies with `os`/`cpu`/`libc` fields (`@biomejs/cli-darwin-arm64`, …). pnpm
// installs only the current platform's, but a complete lockfile lists every one of them. A lockfile can lose the
// foreign ones (it happened here: only the Linux packages of turbo, Biome and Rollup were left), and a frozen
// install on another platform then skips the missing package without a word, leaving no binary.
//
// How: copies the lockfile, pnpm-workspace.yaml, .npmrc and every workspace package.json into a temp folder
// and lets pnpm re-resolve the incomplete entries there (`install --lockfile-only --fix-lockfile`, with
// supportedArchitectures widened to linux, darwin and win32 on x64 and arm64 through --os/--cpu/--libc,
// scripts off, registry metadata from pnpm's cache when it has it). The lockfile must come back unchanged; if
// not, the packages pnpm added or dropped are listed. Nothing is installed and the checkout is not touched.
//
// To fix a failure: `npx -y pnpm@10.34.8 install --lockfile-only --fix-lockfile`, then commit pnpm-lock.yaml.
// (supportedArchitectures is deliberately not set in pnpm-workspace.yaml: it would make every install
// download every listed platform's binaries, ~1.7 GB of store instead of ~0.5 GB; the lockfile needs none of
// it to be complete.)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { PNPM, quietEnv, removeTemp, root, run, tail } from './lib.mjs';

const { values } = parseArgs({ options: { keep: { type: 'boolean' } } });
const TAG = 'lockfile';
const PLATFORMS = [
  '--os',
  'linux',
  '--os',
  'darwin',
  '--os',
  'win32',
  '--cpu',
  'x64',
  '--cpu',
  'arm64',
  '--libc',
  'glibc',
  '--libc',
  'musl',
];

/** The workspace's package.json files (relative paths), from the `packages:` globs of pnpm-workspace.yaml. */
function workspaceManifests() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:[ \t]+-.*\n?)+)/m.exec(yaml);
  if (!block) throw new Error('pnpm-workspace.yaml has no packages: list');
  const manifests = ['package.json'];
  for (const [, raw] of block[1].matchAll(/^[ \t]+-[ \t]*(.+?)[ \t]*$/gm)) {
    const pattern = raw.replace(/^['"]|['"]$/g, '');
    if (pattern.startsWith('!')) continue;
    const dirs = pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${pattern.slice(0, -2)}/${e.name}`)
      : [pattern];
    for (const dir of dirs) if (existsSync(join(root, dir, 'package.json'))) manifests.push(`${dir}/package.json`);
  }
  return manifests;
}

/** The `packages:` keys of a lockfile (`name@version`), as a set. */
function packageKeys(text) {
  const start = text.indexOf('\npackages:\n');
  const end = text.indexOf('\nsnapshots:\n');
  const section = text.slice(start, end === -1 ? undefined : end);
  return new Set([...section.matchAll(/^ {2}'?([^\s':][^:']*)'?:\s*$/gm)].map((m) => m[1]));
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-lockfile-'));
let failed = false;
try {
  for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc', ...workspaceManifests()]) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(tmp, file)), { recursive: true });
    copyFileSync(join(root, file), join(tmp, file));
  }
  const args = ['install', '--lockfile-only', '--fix-lockfile', '--ignore-scripts', '--prefer-offline', ...PLATFORMS];
  console.log(`[${TAG}] pnpm ${args.join(' ')} (in a temp copy of the workspace manifests)`);
  const res = run(PNPM[0], [...PNPM.slice(1), ...args], { cwd: tmp, env: { ...quietEnv, CI: '1' } });
  if (res.status !== 0) {
    console.error(`[${TAG}] FAILED: pnpm exited ${res.status}\n${tail(res.output)}`);
    failed = true;
  } else {
    const before = readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8');
    const after = readFileSync(join(tmp, 'pnpm-lock.yaml'), 'utf8');
    if (before === after) {
      const foreign = [...packageKeys(before)].filter((k) => /(darwin|win32|windows)/.test(k)).length;
      console.log(`[${TAG}] OK: pnpm-lock.yaml is complete for every platform (${foreign} macOS/Windows packages listed) (${res.ms} ms)`);
    } else {
      const [was, now] = [packageKeys(before), packageKeys(after)];
      const added = [...now].filter((k) => !was.has(k));
      const dropped = [...was].filter((k) => !now.has(k));
      console.error(`[${TAG}] FAILED: pnpm-lock.yaml is incomplete or out of date; a re-resolution changes it`);
      if (added.length > 0) console.error(`  missing (${added.length}): ${added.join(', ')}`);
      if (dropped.length > 0) console.error(`  extra (${dropped.length}): ${dropped.join(', ')}`);
      if (added.length + dropped.length === 0) console.error('  (same packages; the dependency entries differ)');
      console.error(`  fix: ${PNPM.join(' ')} install --lockfile-only --fix-lockfile, and commit pnpm-lock.yaml`);
      failed = true;
    }
  }
} finally {
  removeTemp(TAG, tmp, values.keep);
}
process.exit(failed ? 1 : 0);
