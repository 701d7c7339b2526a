// check-pack's inspection of one unpacked tarball: its files, exports, imports and the bin's closure.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix, relative } from 'node:path';
import { root } from '../lib.mjs';

const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
const ALLOWED_TOP_LEVEL = /^(package\.json|server\.json|README(\.md)?|CHANGELOG(\.md)?|LICEN[CS]E(\.md|\.txt)?)$/i;
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
export function walk(dir, base = dir) {
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
// Not after a quote: the words "import" and "export" as string literals (a subcommand's name) are not statements.
const STATIC_RE = /(?:^|[^\w$."'`])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"'\n]+)["']/g;
const DYNAMIC_RE = /(?:^|[^\w$."'`])(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;
// A same-folder module named in a string: `new URL('./convertWorker.js', import.meta.url)`, a lazy chunk's `require`.
const REL_LITERAL_RE = /["'`](\.\/[\w.-]+\.(?:m?js|cjs))["'`]/g;

/** What a bare module specifier can look like (`pkg`, `@scope/pkg/sub/path.js`). */
const MODULE_SPECIFIER_RE = /^[\w@][\w@./+:-]*$/;

function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Inspects one unpacked tarball; returns a list of problems. */
export function inspect(pkgRoot, { isServer, sourceDir }) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8'));
  const files = new Set(walk(pkgRoot));
  for (const field of DEP_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).includes('workspace:')) problems.push(`${field}.${dep} is still "${range}"`);
    }
  }
  const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
  const hasBins = Object.keys(bins).length > 0;
  for (const f of files) {
    if (
      !f.startsWith('dist/') &&
      !(hasBins && f.startsWith('bin/')) &&
      !(isServer && f.startsWith('skills/')) &&
      !ALLOWED_TOP_LEVEL.test(f)
    )
      problems.push(`ships ${f}, outside ${hasBins ? 'bin/ and dist/' : 'dist/'}`);
  }
  if (![...files].some((f) => f.startsWith('dist/'))) problems.push('has no dist/ files');
  if (!files.has('README.md')) problems.push('has no README.md');
  if (!files.has('LICENSE')) problems.push('has no LICENSE');
  // A server's MCP Registry manifest ships with it (the registry and catalogs read it from the package).
  if (isServer && !files.has('server.json')) problems.push('has no server.json');
  // npm and pnpm never pack a CHANGELOG with `files: ["dist"]`; changesets keeps it in the package folder (and the repo).
  if (!existsSync(join(sourceDir, 'CHANGELOG.md'))) problems.push(`has no CHANGELOG.md in ${relative(root, sourceDir)}`);
  if (manifest.type !== 'module') problems.push(`"type" is ${JSON.stringify(manifest.type)}, not "module"`);
  // A server's SEP-2640 skills (skills/<name>/SKILL.md) ship beside its bin, read at run time.
  const serverFiles = ['bin', 'dist', 'server.json', ...(manifest.files?.includes('skills') ? ['skills'] : [])];
  const expectedFiles = isServer ? serverFiles : hasBins ? ['bin', 'dist'] : ['dist'];
  if (JSON.stringify(manifest.files) !== JSON.stringify(expectedFiles))
    problems.push(`"files" is ${JSON.stringify(manifest.files)}, not ${JSON.stringify(expectedFiles)}`);

  const targets = [];
  for (const target of exportTargets(manifest.exports)) targets.push(['exports', target]);
  for (const field of ['main', 'module', 'types', 'typings']) if (manifest[field]) targets.push([field, manifest[field]]);
  for (const [where, target] of targets) {
    const file = posix.normalize(target.replace(/^\.\//, ''));
    if (file === 'package.json') continue;
    if (!file.startsWith('dist/')) problems.push(`${where} points outside dist/: ${target}`);
    else if (!files.has(file)) problems.push(`${where} points to ${target}, which is not in the tarball`);
  }
  // A bin is a committed shim outside dist/ (bin/<name>.js importing ../dist/…): pnpm links bins at install time,
  // and one under dist/ does not exist yet in a fresh clone (a "Failed to create bin" warning per dependent).
  for (const [name, target] of Object.entries(bins)) {
    const file = posix.normalize(target.replace(/^\.\//, ''));
    if (file !== `bin/${name}.js`) problems.push(`bin ${name} is ${target}, not ./bin/${name}.js (the committed shim)`);
    if (!files.has(file)) {
      problems.push(`bin ${name} points to ${target}, which is not in the tarball`);
      continue;
    }
    const code = readFileSync(join(pkgRoot, file), 'utf8');
    if (!code.startsWith('#!/usr/bin/env node')) problems.push(`bin ${name} (${target}) does not start with #!/usr/bin/env node`);
    const imports = [...code.matchAll(STATIC_RE), ...code.matchAll(DYNAMIC_RE)].map((m) => m[1]);
    const built = imports.map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)));
    if (imports.length === 0 || built.some((f) => !f.startsWith('dist/')))
      problems.push(`bin ${name} (${target}) should only import the built entry under dist/ (imports: ${imports.join(', ') || 'none'})`);
  }
  if (isServer) {
    const short = manifest.name.replace(/^@mcpkit\/server-/, '');
    if (!bins[`mcp-server-${short}`]) problems.push(`has no bin "mcp-server-${short}" (bins: ${Object.keys(bins).join(', ') || 'none'})`);
  }

  // The bin must start with only `dependencies` installed (npm leaves optional peers out); the library
  // entry may also import peer dependencies, which its user installs.
  const installed = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const declared = new Set([...installed, ...Object.keys(manifest.peerDependencies ?? {})]);
  const jsFiles = [...files].filter((f) => /^(dist|bin)\/.*\.(m?js|cjs)$/.test(f));
  const binFiles = binClosure(
    pkgRoot,
    files,
    Object.values(bins).map((t) => posix.normalize(t.replace(/^\.\//, ''))),
  );
  for (const file of jsFiles) {
    const code = readFileSync(join(pkgRoot, file), 'utf8');
    const inBin = binFiles.has(file);
    for (const [re, kind] of [
      [STATIC_RE, 'static'],
      [DYNAMIC_RE, 'dynamic'],
      [REL_LITERAL_RE, 'literal'],
    ]) {
      for (const match of code.matchAll(re)) {
        const spec = match[1];
        if (spec.startsWith('.')) {
          const resolved = posix.normalize(posix.join(posix.dirname(file), spec));
          if (!resolved.startsWith('dist/') && !(hasBins && resolved.startsWith('bin/')))
            problems.push(`${file} imports ${spec}, outside dist/`);
          else if (!files.has(resolved))
            problems.push(`${file} ${kind === 'literal' ? 'names' : 'imports'} ${spec}, which is not in the tarball`);
          continue;
        }
        if (kind === 'literal' || builtins.has(spec) || spec.startsWith('node:')) continue;
        // The patterns read text, not syntax: in minified code (the bundled OpenTelemetry chunk) a quote of one
        // string and the quote of the next can frame code. A module specifier has no white space, `;`, `(` or `{`.
        if (!MODULE_SPECIFIER_RE.test(spec)) continue;
        const name = packageNameOf(spec);
        if (inBin) {
          // `import()` counts too: a bundle has no guarded optional `import()`. `require('x')` does not: bundled
          // code keeps guarded `require('optional-dep')` calls that never run, and Ajv's code generator holds
          // `require("ajv/…")` strings for standalone output.
          if ((kind === 'static' || match[0].includes('import')) && !installed.has(name)) {
            problems.push(
              `${file} (part of the bin) imports ${spec}, but ${name} is not in dependencies (${declared.has(name) ? 'a peer dependency is not installed with the bin' : 'not declared'})`,
            );
          }
        } else if (kind === 'static' && !declared.has(name)) {
          // Only static imports: bundled code keeps guarded `require('optional-dep')` calls that never run.
          problems.push(`${file} imports ${spec}, but ${name} is not a declared dependency`);
        }
      }
    }
  }
  return problems;
}

/**
 * The bin's files: its entries and every file they reach through relative imports, `import()`, `require()`
 * or a `'./x.js'` string literal (a worker's or a lazy chunk's URL), transitively.
 */
function binClosure(pkgRoot, files, entries) {
  const seen = new Set();
  const queue = entries.filter((f) => files.has(f));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(pkgRoot, file), 'utf8');
    for (const re of [STATIC_RE, DYNAMIC_RE, REL_LITERAL_RE]) {
      for (const [, spec] of code.matchAll(re)) {
        if (!spec.startsWith('.')) continue;
        const resolved = posix.normalize(posix.join(posix.dirname(file), spec));
        if (files.has(resolved) && !seen.has(resolved)) queue.push(resolved);
      }
    }
  }
  return seen;
}
