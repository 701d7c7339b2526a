#!/usr/bin/env node
// Checks that every package README has the sections CONTRIBUTING.md ("README sections") lists, word for word and
// in that order, so a user finds the same thing in the same place on every package page:
//
//   node tooling/scripts/check-readmes.mjs          (pnpm check:readmes)
//
// - servers (packages/server-*/README.md) and the template (tooling/templates/server/README.md): the
//   SERVER_SECTIONS `##` headings in order (the optional ones only where they apply: `Host it`, and the list of
//   what a client sees differently since SDK v2), nothing else at that level; under `## Use it`, the USE_IT `###`
//   subsections in order (other `###` subsections may follow or sit between them);
// - libraries (packages/* other than server-*): the LIBRARY_SECTIONS `##` headings in order, the optional ones
//   only where they apply; apps/agent-cli: the APP_SECTIONS.
// Each of those subsections must name the package of the README's `#` title (its `npx -y @mcpkit/server-<name>`
// snippet). While a package has never been released (version 0.0.0 in its package.json, the template's too), its
// README must carry the NOT_ON_NPM note before its first `##` section, saying how to run it from a local build:
// every `npx -y`/`npm install` of it gets a 404 until then. Once `pnpm version-packages` gives it a version to
// publish, the note must go (npm shows the README). Headings inside fenced code blocks don't count. Plain Node, no
// dependencies. Exits 1 naming each file and each missing, misordered or unknown heading (or note).
//
// It also checks, for the same READMEs plus the root README, CONTRIBUTING.md, apps/*/README.md and docs/**/*.md,
// that every relative link names a file that exists (and, for a `#anchor` into a Markdown file, a heading there),
// that every code path the package READMEs and their docs/<package>/ pages name exists (readmes/paths.mjs),
// and runs `bench-table.mjs --check`: each README's bench table is what its docs/<package>/bench.json gives.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run as benchTables } from './bench-table.mjs';
import { mappedFiles, pathProblems } from './readmes/paths.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `##` heading of the section listing what a client sees differently since the move to SDK v2 (issue 18). */
export const ERA_CHANGES = 'MCP 2026-07-28 and SDK v2: what a client sees differently';
/** `optional: true` sections may be left out (a server with nothing to say there); the others are required. */
export const SERVER_SECTIONS = [
  { name: 'Use it' },
  { name: 'Tools' },
  // The 2026 extensions: which tools run as tasks (SEP-2663) and the skills the server publishes (SEP-2640).
  { name: 'Tasks', optional: true },
  { name: 'Skills', optional: true },
  { name: 'Configuration' },
  { name: 'Security' },
  // Hosting for many users (OAuth resource server, behind a TLS proxy): issue 20; required once it lands.
  { name: 'Host it', optional: true },
  { name: 'What differs from the reference, and why' },
  // Only a server released before SDK v2 has changes to list; a new one (the template) has none.
  { name: ERA_CHANGES, optional: true },
  { name: 'Libraries' },
  { name: 'Performance' },
  { name: 'Conformance and interop' },
];
export const USE_IT = ['Claude Desktop', 'VS Code', 'Cursor', 'Windows (`cmd /c`)', 'MCP Inspector', 'HTTP', 'Docker'];
/** `optional: true` sections may be left out; the others are required. */
export const LIBRARY_SECTIONS = [
  { name: 'Install' },
  { name: 'Use' },
  { name: 'API' },
  { name: 'Tasks', optional: true },
  { name: 'Skills', optional: true },
  { name: 'Security' },
  { name: ERA_CHANGES, optional: true },
  { name: 'Libraries' },
  { name: 'Performance', optional: true },
  { name: 'Tests' },
];
/** How the note starts that every unreleased package's README has near the top (a blockquote). */
export const NOT_ON_NPM = '> **Not on npm yet.**';
export const APP_SECTIONS = [{ name: 'Install' }, { name: 'Use' }, { name: 'Options' }, { name: 'Security' }, { name: 'Tests' }];

/** `{ level, text, line }` for every ATX heading outside fenced code blocks. */
export function headings(markdown) {
  const out = [];
  let fence = null;
  markdown.split(/\r?\n/).forEach((text, i) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (open) {
      if (fence === null) fence = open[1];
      else if (open[1][0] === fence[0] && open[1].length >= fence.length && text.trim() === open[1]) fence = null;
      return;
    }
    if (fence !== null) return;
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(text);
    if (h) out.push({ level: h[1].length, text: h[2], line: i + 1 });
  });
  return out;
}

/**
 * Problems with `found` (headings, in document order) against `expected` (`{ name, optional }`, in order):
 * unknown headings, duplicates, missing required ones, and ones out of order. `label` renders a heading.
 */
function compare(found, expected, label, { allowOthers = false } = {}) {
  const problems = [];
  const names = expected.map((e) => e.name);
  const seen = new Set();
  const known = [];
  for (const h of found) {
    if (!names.includes(h.text)) {
      if (!allowOthers) {
        problems.push(
          `line ${h.line}: ${label(h.text)} is not one of the sections (${names.map(label).join(', ')}); rename it or make it a subsection of one`,
        );
      }
      continue;
    }
    if (seen.has(h.text)) {
      problems.push(`line ${h.line}: ${label(h.text)} appears twice`);
      continue;
    }
    seen.add(h.text);
    known.push(h);
  }
  for (const [i, e] of expected.entries()) {
    if (e.optional || seen.has(e.name)) continue;
    const before = expected
      .slice(0, i)
      .reverse()
      .find((p) => seen.has(p.name));
    problems.push(`missing ${label(e.name)}${before ? ` (expected after ${label(before.name)})` : ' (expected first)'}`);
  }
  let last = -1;
  for (const h of known) {
    const at = names.indexOf(h.text);
    if (at < last) {
      problems.push(`line ${h.line}: ${label(h.text)} is out of order: it belongs before ${label(names[last])}`);
    } else {
      last = at;
    }
  }
  return problems;
}

/**
 * Problems of one README; `kind` is `server`, `library` or `app`; `unreleased`: its package is at version 0.0.0
 * (true: the NOT_ON_NPM note is required; false: it must be gone, since the README is published with the package;
 * undefined: not checked).
 */
export function checkReadme(markdown, kind, { unreleased } = {}) {
  const all = headings(markdown);
  const problems = [];
  if (all.filter((h) => h.level === 1).length !== 1) problems.push('expected exactly one `#` title');
  const note = markdown.split(/\r?\n/).findIndex((line) => line.startsWith(NOT_ON_NPM)) + 1;
  if (unreleased === true) {
    const firstSection = all.find((h) => h.level === 2)?.line ?? Number.POSITIVE_INFINITY;
    if (note === 0 || note > firstSection)
      problems.push(
        `the package is unreleased (version 0.0.0): expected a \`${NOT_ON_NPM}\` note before the first \`##\` section, saying how to run it from a local build`,
      );
  } else if (unreleased === false && note !== 0) {
    problems.push(`line ${note}: the package has a version to publish: remove the \`${NOT_ON_NPM}\` note (npm shows this README)`);
  }
  const h2 = all.filter((h) => h.level === 2);
  const label2 = (t) => `\`## ${t}\``;
  if (kind === 'library') return [...problems, ...compare(h2, LIBRARY_SECTIONS, label2)];
  if (kind === 'app') return [...problems, ...compare(h2, APP_SECTIONS, label2)];

  problems.push(...compare(h2, SERVER_SECTIONS, label2));
  const useIt = all.findIndex((h) => h.level === 2 && h.text === 'Use it');
  if (useIt !== -1) {
    const end = all.findIndex((h, i) => i > useIt && h.level <= 2);
    const sub = all.slice(useIt + 1, end === -1 ? undefined : end).filter((h) => h.level === 3);
    const sections = compare(
      sub,
      USE_IT.map((name) => ({ name })),
      (t) => `\`### ${t}\``,
      { allowOthers: true },
    );
    problems.push(...sections.map((p) => `under \`## Use it\`: ${p}`));
    // Each client's snippet starts the package itself: `npx -y @mcpkit/server-<name>` (the title names it).
    const title = all.find((h) => h.level === 1)?.text.replace(/`/g, '');
    if (title?.startsWith('@mcpkit/')) {
      const lines = markdown.split(/\r?\n/);
      const stop = end === -1 ? lines.length : all[end].line - 1;
      for (const [i, h] of sub.entries()) {
        if (!USE_IT.includes(h.text)) continue;
        const body = lines.slice(h.line, i + 1 < sub.length ? sub[i + 1].line - 1 : stop).join('\n');
        if (!body.includes(title)) problems.push(`line ${h.line}: \`### ${h.text}\` (under \`## Use it\`) never names ${title}`);
      }
    }
  }
  return problems;
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function slug(text) {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text: one per heading (repeats get `-1`, `-2`, …), and `<a name|id="…">`. */
export function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const h of headings(markdown)) {
    const s = slug(h.text);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  for (const m of markdown.matchAll(/<a (?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/**
 * The relative links of `file` (absolute path) that do not resolve, as `line N: …` problems: outside fenced code
 * and inline code, `[text](target)` whose target is not a URL must name an existing file or folder, and a
 * `#anchor` into a Markdown file (or the file itself) must be one of its headings.
 */
export function brokenLinks(file, read = (f) => readFileSync(f, 'utf8')) {
  const problems = [];
  let fence = null;
  read(file)
    .split(/\r?\n/)
    .forEach((line, i) => {
      const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (open) {
        if (fence === null) fence = open[1];
        else if (open[1][0] === fence[0] && open[1].length >= fence.length && line.trim() === open[1]) fence = null;
        return;
      }
      if (fence !== null) return;
      for (const m of line.replace(/`[^`]*`/g, '``').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const url = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(url)) continue;
        const [path, anchor] = url.split('#');
        const target = path ? resolve(dirname(file), decodeURI(path)) : file;
        if (!existsSync(target)) problems.push(`line ${i + 1}: the link ${url} names a file that does not exist`);
        else if (anchor && target.endsWith('.md') && statSync(target).isFile() && !anchors(read(target)).has(anchor))
          problems.push(
            `line ${i + 1}: the link ${url} names a heading that ${relative(dirname(file), target) || 'this file'} does not have`,
          );
      }
    });
  return problems;
}

/** Every Markdown file whose links are checked (absolute paths): the READMEs, CONTRIBUTING.md and docs/. */
export function linkedFiles() {
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  const files = [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...readmes().map((r) => join(root, r.file))];
  for (const group of ['apps', 'packages'])
    for (const entry of readdirSync(join(root, group))) files.push(join(root, group, entry, 'README.md'));
  if (existsSync(join(root, 'docs'))) files.push(...walk(join(root, 'docs')));
  return [...new Set(files)].filter((f) => existsSync(f)).sort();
}

/**
 * Problems with CONTRIBUTING.md's "Where things live" map (the fenced block under that `##` heading): every entry
 * must exist. An entry is a line's first word when the line starts at column 0 (a path from the repository root)
 * or at column 2 (a path inside the entry above it); a deeper line continues a description. A `<name>` segment
 * matches any entry of its folder, and an entry below such a path must exist in at least one of its matches.
 */
export function mapProblems(markdown, base = root) {
  const lines = markdown.split(/\r?\n/);
  const start = lines.indexOf('## Where things live');
  if (start === -1) return ['CONTRIBUTING.md has no `## Where things live` section'];
  const open = lines.findIndex((l, i) => i > start && /^```/.test(l));
  const close = lines.findIndex((l, i) => i > open && /^```/.test(l));
  if (open === -1 || close === -1) return ['`## Where things live` has no fenced map'];
  const expand = (dirs, rel) =>
    rel
      .replace(/\/$/, '')
      .split('/')
      .reduce((acc, segment) => {
        if (!/<[^>]+>/.test(segment)) return acc.map((d) => join(d, segment)).filter((d) => existsSync(d));
        const pattern = new RegExp(`^${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '.+')}$`);
        return acc.flatMap((d) =>
          (existsSync(d) && statSync(d).isDirectory() ? readdirSync(d) : []).filter((e) => pattern.test(e)).map((e) => join(d, e)),
        );
      }, dirs);
  const problems = [];
  let parent = [base];
  for (let i = open + 1; i < close; i++) {
    const m = /^( {0,2})(\S+)/.exec(lines[i]);
    if (!m) continue;
    const found = expand(m[1] === '' ? [base] : parent, m[2]);
    if (found.length === 0) problems.push(`line ${i + 1}: ${m[2]} does not exist`);
    if (m[1] === '') parent = found;
  }
  return problems;
}

/** The READMEs this check covers, as `{ file, kind }` with `file` relative to the repository root. */
export function readmes() {
  const list = [];
  for (const entry of readdirSync(join(root, 'packages')).sort()) {
    const file = join('packages', entry, 'README.md');
    if (!existsSync(join(root, 'packages', entry, 'package.json'))) continue;
    list.push({ file, kind: entry.startsWith('server-') ? 'server' : 'library' });
  }
  list.push({ file: join('tooling', 'templates', 'server', 'README.md'), kind: 'server' });
  list.push({ file: join('apps', 'agent-cli', 'README.md'), kind: 'app' });
  return list;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let failed = 0;
  const list = readmes();
  for (const { file, kind } of list) {
    const path = join(root, file);
    const manifest = join(dirname(path), 'package.json');
    const unreleased = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version === '0.0.0' : undefined;
    const problems = existsSync(path) ? checkReadme(readFileSync(path, 'utf8'), kind, { unreleased }) : ['the file is missing'];
    if (problems.length === 0) continue;
    failed++;
    for (const p of problems) console.error(`${relative(process.cwd(), path) || file}: ${p}`);
  }
  let broken = 0;
  const linked = linkedFiles();
  for (const file of linked) {
    const problems = brokenLinks(file);
    broken += problems.length;
    for (const p of problems) console.error(`${relative(process.cwd(), file)}: ${p}`);
  }
  const map = mapProblems(readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8'));
  for (const p of map) console.error(`CONTRIBUTING.md ("Where things live"): ${p}`);
  broken += map.length;
  for (const { file, dir } of mappedFiles()) {
    const problems = pathProblems(file, dir);
    broken += problems.length;
    for (const p of problems) console.error(`${relative(process.cwd(), file)}: ${p}`);
  }
  const staleTables = benchTables({ check: true, log: () => {} });
  if (failed > 0 || broken > 0 || staleTables > 0) {
    if (failed > 0)
      console.error(`[readmes] ${failed} of ${list.length} READMEs lack the sections CONTRIBUTING.md lists ("README sections")`);
    if (broken > 0)
      console.error(
        `[readmes] ${broken} relative links (or CONTRIBUTING.md's map entries, or code paths the READMEs and docs name) in ${linked.length} Markdown files do not resolve`,
      );
    if (staleTables > 0) console.error(`[readmes] ${staleTables} bench tables are not current (node tooling/scripts/bench-table.mjs)`);
    process.exit(1);
  }
  console.log(
    `[readmes] OK: ${list.length} READMEs have their sections in order (servers and template: ${SERVER_SECTIONS.filter((s) => !s.optional).length} required, ${SERVER_SECTIONS.filter((s) => s.optional).length} optional; Use it: ${USE_IT.length} subsections); every relative link of ${linked.length} Markdown files and CONTRIBUTING.md's map resolves, and every code path the package READMEs and docs name exists; the bench tables are current`,
  );
}
