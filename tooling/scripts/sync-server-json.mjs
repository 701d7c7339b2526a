#!/usr/bin/env node
// Writes each package's version into its MCP Registry manifest: the top-level `version` of
// packages/*/server.json, the `version` of its npm entry in `packages` (the one whose `identifier` is the
// package name) and the tag of its OCI entry (`identifier` docker.io/mcpkit/server-<name>:<version>, where the
// registry's schema puts an image's version). Run by `pnpm version-packages` right after `changeset version`; check-registry.mjs fails
// when the two are out of sync. The Claude Desktop bundle manifest (packages/*/mcpb/manifest.json, `version`)
// is kept in step the same way (build-mcpb.mjs stamps the bundle from package.json anyway; this keeps the
// source file honest).
//
//   node tooling/scripts/sync-server-json.mjs           rewrite what changed, one line per file
//   node tooling/scripts/sync-server-json.mjs --check   change nothing; exit 1 if a file is out of sync
//
// Plain Node, no dependencies. Files are written as JSON.stringify(…, null, 2) plus a newline, the format they
// are kept in (Biome does not format JSON in this repository).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const checkOnly = process.argv.includes('--check');
const packagesDir = join(root, 'packages');

let stale = 0;
let failed = false;
for (const entry of readdirSync(packagesDir).sort()) {
  const file = join(packagesDir, entry, 'server.json');
  const manifest = join(packagesDir, entry, 'package.json');
  if (!existsSync(file) || !existsSync(manifest)) continue;
  const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
  const text = readFileSync(file, 'utf8');
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    console.error(`sync-server-json: packages/${entry}/server.json is not JSON: ${error.message}`);
    failed = true;
    continue;
  }
  const before = doc.version;
  doc.version = version;
  const entries = (doc.packages ?? []).filter((p) => p.registryType === 'npm' && p.identifier === name);
  if (entries.length === 0) {
    console.error(`sync-server-json: packages/${entry}/server.json has no npm package "${name}" in packages`);
    failed = true;
  }
  for (const p of entries) p.version = version;
  // The image of this package: tagged with its version (an identifier ending in a digest is left alone).
  const image = `/${name.replace(/^@[^/]+\//, '')}`;
  for (const p of doc.packages ?? []) {
    if (p.registryType !== 'oci' || typeof p.identifier !== 'string' || p.identifier.includes('@sha256:')) continue;
    const repo = p.identifier.replace(/:[^:/]+$/, '');
    if (repo.endsWith(image)) p.identifier = `${repo}:${version}`;
  }
  const out = `${JSON.stringify(doc, null, 2)}\n`;
  if (out === text) continue;
  stale++;
  if (checkOnly) console.error(`sync-server-json: packages/${entry}/server.json is out of sync with package.json (${version})`);
  else {
    writeFileSync(file, out);
    console.log(`sync-server-json: packages/${entry}/server.json ${before} -> ${version}`);
  }
}
for (const entry of readdirSync(packagesDir).sort()) {
  const file = join(packagesDir, entry, 'mcpb', 'manifest.json');
  const manifest = join(packagesDir, entry, 'package.json');
  if (!existsSync(file) || !existsSync(manifest)) continue;
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  const text = readFileSync(file, 'utf8');
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    console.error(`sync-server-json: packages/${entry}/mcpb/manifest.json is not JSON: ${error.message}`);
    failed = true;
    continue;
  }
  if (doc.version === version) continue;
  stale++;
  if (checkOnly) console.error(`sync-server-json: packages/${entry}/mcpb/manifest.json is out of sync with package.json (${version})`);
  else {
    const before = doc.version;
    doc.version = version;
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`sync-server-json: packages/${entry}/mcpb/manifest.json ${before} -> ${version}`);
  }
}
if (failed || (checkOnly && stale > 0)) process.exit(1);
if (!checkOnly && stale === 0) console.log('sync-server-json: every server.json and mcpb/manifest.json already has its package version');
