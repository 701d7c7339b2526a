#!/usr/bin/env node
// Checks that no workspace package reaches into another package's `src/` or `test/` by a relative path:
//
//   node tooling/scripts/check-imports.mjs          (part of `pnpm lint` and of ci.sh's lint step)
//
// A package uses another through its name and its exports (`@mcpkit/protocol-core/testing`); fixtures shared by
// several packages' tests live in `tooling/test-utils` (`@mcpkit/test-utils/<subpath>`). Every relative specifier
// in the source files of every workspace package (pnpm-workspace.yaml: packages/*, apps/*, tooling/*) is resolved
// from the file that names it: `import … from`, `export … from`, `import('…')`, `require('…')`, `vi.mock('…')` and
// `new URL('…', import.meta.url)`. One that lands in another workspace package's `src/` or `test/` is reported.
// Files at the repository's root that several packages share on purpose (vitest.shared.ts, tsup.server.ts) and data
// outside any package's src/ or test/ are not concerned. Biome's noRestrictedImports cannot say this: its patterns
// match the specifier's text, and `../../src/x.ts` is a package's own source from `test/postgres/` but another
// package's from `test/`. Plain Node, no dependencies. Exits 1 naming each file, line and target.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKSPACE_DIRS = ['packages', 'apps', 'tooling'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.turbo', '.git']);
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const FORBIDDEN = ['src', 'test'];
// A relative specifier in the places a module names another module or a file next to it.
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.(?:mock|doMock|importActual)\s*\(\s*|\bnew\s+URL\s*\(\s*)(['"`])(\.{1,2}\/[^'"`\n]*)\1/g;

/** The workspace packages: each directory under packages/, apps/ and tooling/ with a package.json. */
function workspacePackages() {
  const found = [];
  for (const group of WORKSPACE_DIRS) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const pkg = join(dir, name);
      if (existsSync(join(pkg, 'package.json'))) found.push(pkg);
    }
  }
  return found;
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.isFile() && SOURCE.test(entry.name)) yield path;
  }
}

const inside = (dir, path) => path === dir || path.startsWith(dir + sep);

/** The violations in `file` of package `own`: relative specifiers into another package's src/ or test/. */
function violationsIn(file, own, packages, text = readFileSync(file, 'utf8')) {
  const found = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), match[2]);
    if (inside(own, target)) continue;
    const other = packages.find((pkg) => inside(pkg, target));
    if (!other) continue;
    const area = relative(other, target).split(sep)[0];
    if (!FORBIDDEN.includes(area)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ file, line, specifier: match[2], target });
  }
  return found;
}

function main() {
  const packages = workspacePackages();
  const problems = [];
  for (const pkg of packages) {
    // A package nested in another (none today) is checked as its own package, not as part of the outer one.
    const nested = packages.filter((other) => other !== pkg && inside(pkg, other));
    for (const file of sourceFiles(pkg)) {
      if (nested.some((inner) => inside(inner, file))) continue;
      if (!statSync(file).isFile()) continue;
      problems.push(...violationsIn(file, pkg, packages));
    }
  }
  for (const p of problems) {
    console.error(
      `${relative(root, p.file)}:${p.line}: '${p.specifier}' reaches into ${relative(root, p.target)}, another package's ${relative(root, p.target).split(sep).slice(2, 3)}/: import it by its package name and exports, or move the shared fixture into tooling/test-utils (@mcpkit/test-utils)`,
    );
  }
  if (problems.length > 0) {
    console.error(`check-imports: ${problems.length} relative import(s) into another package's src/ or test/`);
    process.exit(1);
  }
  console.error(`check-imports: ${packages.length} packages, no relative import into another package's src/ or test/`);
}

main();
