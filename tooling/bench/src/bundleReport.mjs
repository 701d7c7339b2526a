#!/usr/bin/env node
/**
 * What a server bin loads at start-up, from esbuild's metafile of its bundle: the chunks `dist/cli.js`
 * reaches through static imports (a cold start parses and evaluates all of them; chunks behind
 * `await import()` cost it nothing), each with its size, the Node built-ins it imports and its largest
 * inputs grouped by package.
 *
 *   cd packages/server-memory && MCPKIT_METAFILE=1 npx tsup     # writes dist/metafile-esm.json
 *   node ../../tooling/bench/src/bundleReport.mjs packages/server-memory   # (from the repo root)
 *
 * Options: `--top N` inputs per chunk (default 8). Read-only; prints to stdout.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 8 : Number(args[topAt + 1]);
const dir = resolve(args.find((a, i) => !a.startsWith('--') && i !== topAt + 1) ?? '.');
const meta = JSON.parse(readFileSync(join(dir, 'dist', 'metafile-esm.json'), 'utf8'));

/** `…/node_modules/.pnpm/x@1/node_modules/@scope/pkg/dist/a.js` → `@scope/pkg`; workspace sources → their folder. */
function packageOf(input) {
  const nm = input.lastIndexOf('node_modules/');
  if (nm === -1)
    return input
      .split('/')
      .slice(0, input.startsWith('../') ? 3 : 2)
      .join('/');
  const rest = input.slice(nm + 'node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

const startPath = [];
const visit = (out) => {
  if (startPath.includes(out) || !meta.outputs[out]) return;
  startPath.push(out);
  for (const imp of meta.outputs[out].imports) if (imp.kind === 'import-statement') visit(imp.path);
};
visit(Object.keys(meta.outputs).find((out) => out.endsWith('/cli.js')));

let total = 0;
for (const out of startPath) {
  const { bytes, imports, inputs } = meta.outputs[out];
  total += bytes;
  const builtins = [...new Set(imports.filter((i) => i.kind === 'import-statement' && !meta.outputs[i.path]).map((i) => i.path))];
  console.log(`${out}  ${(bytes / 1024).toFixed(1)} KiB  built-ins: ${builtins.join(', ') || '—'}`);
  const byPackage = new Map();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const key = packageOf(input);
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  for (const [key, size] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${(size / 1024).toFixed(1).padStart(7)} KiB  ${key}`);
  }
}
const lazy = Object.keys(meta.outputs).filter((out) => out.includes('/cli') && !startPath.includes(out));
console.log(`\nstart-up: ${startPath.length} files, ${(total / 1024).toFixed(1)} KiB; loaded on first use: ${lazy.join(', ') || '—'}`);
