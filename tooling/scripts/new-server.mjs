#!/usr/bin/env node
// Scaffolds packages/server-<name> from tooling/templates/server: one working tool (`echo`), its in-process
// and stdio tests, README, CHANGELOG, LICENSE and server.json (MCP Registry), plus .changeset/server-<name>-initial.md.
//
//   pnpm new:server <name> [--title "Title"] [--description "One line for npm and --help"]
//
// Plain Node, no dependencies. Placeholders in the template (file contents and paths):
//   $NAME$        kebab-case name        weather-radar
//   $PASCAL$      PascalCase name        WeatherRadar   (createWeatherRadarServer, WeatherRadarContext)
//   $TITLE$       human title            Weather Radar
//   $ENV$         env-var prefix         WEATHER_RADAR  (WEATHER_RADAR_MAX_MESSAGE_LENGTH)
//   $DESCRIPTION$ package description
// `$…$` survives Markdown formatting (Biome rewrites `__X__` to `**X**`) and is valid inside TS identifiers.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const templateDir = join(root, 'tooling', 'templates', 'server');

const USAGE = `usage: pnpm new:server <name> [--title "Title"] [--description "text"]

  <name>         lowercase kebab-case, e.g. weather or git-history; becomes @mcpkit/server-<name>,
                 bin mcp-server-<name>, folder packages/server-<name>
  --title        human title (default: the name in Title Case)
  --description  one line for package.json, npm and --help (default: "<Title> MCP server.")
  --no-format    do not run the repo's Biome formatter on the new files`;

function fail(message, code = 1) {
  console.error(`new-server: ${message}`);
  process.exit(code);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      title: { type: 'string' },
      description: { type: 'string' },
      'no-format': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  fail(`${error.message}\n${USAGE}`, 2);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length !== 1) fail(`expected exactly one name, got ${positionals.length}\n${USAGE}`, 2);

const name = positionals[0];
const NAME_RE = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
if (!NAME_RE.test(name)) {
  fail(
    `"${name}" is not a valid name: use lowercase letters, digits and single hyphens, starting with a letter (e.g. weather, git-history)`,
    2,
  );
}
if (name.startsWith('server-') || name === 'server')
  fail(`drop the "server-" prefix: "pnpm new:server ${name.replace(/^server-?/, '') || '<name>'}"`, 2);
if (name.length > 50) fail(`"${name}" is longer than 50 characters`, 2);

const packageDir = join(root, 'packages', `server-${name}`);
const packageName = `@mcpkit/server-${name}`;
if (existsSync(packageDir)) fail(`${relative(root, packageDir)} already exists`);
for (const entry of readdirSync(join(root, 'packages'))) {
  const manifest = join(root, 'packages', entry, 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === packageName) {
    fail(`${packageName} already exists in packages/${entry}`);
  }
}
const changesetFile = join(root, '.changeset', `server-${name}-initial.md`);
if (existsSync(changesetFile)) fail(`${relative(root, changesetFile)} already exists`);
if (!existsSync(templateDir)) fail(`template not found at ${relative(root, templateDir)}`);

const words = name.split('-');
const title = values.title?.trim() || words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
const description = values.description?.trim() || `${title} MCP server.`;
if (/[\r\n]/.test(title) || /[\r\n]/.test(description)) fail('--title and --description must be one line', 2);
// server.json (the MCP Registry manifest) takes both, as "description" and "mcpkit <title>": 100 characters at most.
if (description.length > 100) fail(`--description is ${description.length} characters; the MCP Registry's server.json allows 100`, 2);
if (title.length > 93) fail(`--title is ${title.length} characters; the MCP Registry's server.json allows 100 for "mcpkit ${title}"`, 2);
const tokens = {
  $NAME$: name,
  $PASCAL$: words.map((w) => w[0].toUpperCase() + w.slice(1)).join(''),
  $TITLE$: title,
  $ENV$: words.join('_').toUpperCase(),
  $DESCRIPTION$: description,
};

/** Replaces every placeholder, escaped for the file: a title or description may hold quotes. */
function substitute(text, file) {
  const escapeFor = file.endsWith('.json')
    ? (v) => JSON.stringify(v).slice(1, -1)
    : file.endsWith('.ts')
      ? (v) => v.replace(/[\\']/g, '\\$&') // placeholders sit in single-quoted strings there
      : (v) => v;
  let out = text;
  for (const [token, value] of Object.entries(tokens)) out = out.split(token).join(escapeFor(value));
  return out;
}

function listFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') return [];
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

const written = [];
for (const source of listFiles(templateDir)) {
  const rel = substitute(relative(templateDir, source), '');
  const target = join(packageDir, rel);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, substitute(readFileSync(source, 'utf8'), source), { mode: statSync(source).mode });
  written.push(target);
}
const license = join(root, 'LICENSE');
if (existsSync(license)) {
  copyFileSync(license, join(packageDir, 'LICENSE'));
  written.push(join(packageDir, 'LICENSE'));
}

mkdirSync(dirname(changesetFile), { recursive: true });
writeFileSync(
  changesetFile,
  `---\n"${packageName}": minor\n---\n\nFirst release of ${packageName} (bin \`mcp-server-${name}\`): ${description}\n`,
);
written.push(changesetFile);

const leftovers = written.filter((f) => /\$(NAME|PASCAL|TITLE|ENV|DESCRIPTION)\$/.test(readFileSync(f, 'utf8')));
if (leftovers.length > 0) fail(`placeholders left in ${leftovers.map((f) => relative(root, f)).join(', ')}`);

// Markdown tables are padded by the formatter, so their widths depend on the substituted names.
const biome = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'biome.cmd' : 'biome');
if (!values['no-format'] && existsSync(biome)) {
  const rels = [relative(root, packageDir), relative(root, changesetFile)];
  const res = spawnSync(biome, ['check', '--write', ...rels], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) console.error(`new-server: biome could not format the new files:\n${res.stdout}${res.stderr}`);
}

console.log(`Created ${packageName} in ${relative(root, packageDir)}/ and ${relative(root, changesetFile)}:
${written.map((f) => `  ${relative(root, f)}`).join('\n')}

Next steps (prefix pnpm with "npx -y pnpm@10.34.8" if it is not installed):
  pnpm install                                              # links the new package, updates pnpm-lock.yaml
  pnpm --filter ${packageName} test                  # in-process tests, from source
  pnpm turbo run build test:stdio --filter=${packageName}...   # builds it and protocol-core, spawns the bin
  pnpm lint && pnpm --filter ${packageName} typecheck

Then replace the echo tool with yours (src/tools/<camelCaseName>.ts, listed in src/tools/index.ts), its flags in
src/config.ts (and their variables in server.json: pnpm check:registry), its tests, the README sections and the changeset text. CONTRIBUTING.md has the conventions.`);
