#!/usr/bin/env node
// Writes each server's Docker MCP catalog entry (github.com/docker/mcp-registry: servers/<name>/server.yaml and
// tools.json) into packages/server-<name>/catalog/: server.yaml from server.json and the image, tools.json from the
// real `tools/list` of the built server (its bin over stdio, through the official SDK client), in the catalog's
// format (what its `build --tools` writes: tools by name, required arguments first, `desc` for each).
//
//   node tooling/scripts/gen-catalog.mjs [server…]           rewrite what changed
//   node tooling/scripts/gen-catalog.mjs --check [server…]   change nothing; exit 1 if a file is not current
//
// check-images.mjs also compares tools.json with the tools/list of each image.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, quietEnv, root, selectServersOrExit } from './lib.mjs';

/** What the catalog shows of each server beyond server.json: its category, tags and how it runs. */
const CATALOG = {
  'server-everything': { category: 'devops', tags: ['testing', 'mcp'] },
  'server-fetch': { category: 'search', tags: ['fetch', 'web', 'markdown'] },
  'server-git': {
    category: 'devops',
    tags: ['git', 'devops'],
    // One repository, mounted at the same path as on the host (so the client's roots name it too) and allowed.
    run: { command: ['--repository', '{{mcpkit-git.repository}}'], volumes: ['{{mcpkit-git.repository}}:{{mcpkit-git.repository}}'] },
    config: {
      description: 'The repository the tools may use (mounted into the container at the same path)',
      parameters: { repository: { type: 'string', default: '/Users/local-test/project' } },
      required: ['repository'],
    },
  },
  'server-memory': { category: 'ai', tags: ['memory', 'knowledge-graph'], run: { volumes: ['mcpkit-memory:/data'] } },
  'server-sequential-thinking': { category: 'ai', tags: ['reasoning', 'ai'] },
};

/** The client the servers test with (a devDependency of each), loaded from the server's own dependencies. */
export function sdkClient(server) {
  const require = createRequire(join(server.path, 'package.json'));
  // biome-ignore lint/correctness/noUndeclaredDependencies: resolved from the server package, whose devDependencies have it
  return { ...require('@modelcontextprotocol/client'), ...require('@modelcontextprotocol/client/stdio') };
}

/** `tools/list` of a server's built bin over stdio, in a temporary HOME (memory's default file stays out of ~). */
export async function listToolsOverStdio(server) {
  const { Client, StdioClientTransport } = sdkClient(server);
  const home = mkdtempSync(join(tmpdir(), 'mcpkit-catalog-'));
  const client = new Client({ name: 'mcpkit-gen-catalog', version: '0.0.0' });
  const env = { ...quietEnv, HOME: home, XDG_DATA_HOME: join(home, 'data'), MEMORY_FILE_PATH: join(home, 'memory.jsonl') };
  for (const name of ['MCP_TRANSPORT', 'PORT', 'GIT_REPOSITORIES', 'EVERYTHING_PROFILE']) delete env[name];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(server.path, binOf(server.manifest)[1])],
    cwd: home,
    env,
    stderr: 'ignore',
  });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return tools;
  } finally {
    await client.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
}

/** A tool description without its `Args:` block (the catalog lists the arguments apart). */
function withoutArgs(text = '') {
  const lines = [];
  for (const line of text.split('\n')) {
    if (line.trim().toLowerCase().startsWith('args:')) break;
    lines.push(line.trim() === '' ? '' : line);
  }
  return lines.join('\n').trim();
}

/**
 * An argument's description: its schema's, the `name: …` line of the tool description, its schema's title, or
 * else its type in words (the catalog's validation refuses an argument without `desc`).
 */
function argumentDescription(name, schema, type, toolDescription = '') {
  if (typeof schema.description === 'string' && schema.description !== '') return schema.description;
  for (const line of toolDescription.split('\n')) {
    const t = line.trim();
    if (t.toLowerCase().startsWith(`${name.toLowerCase()}:`) && t.length > name.length + 1) return t.slice(name.length + 1).trim();
  }
  if (typeof schema.title === 'string' && schema.title !== '') return schema.title;
  const items = typeof schema.items?.type === 'string' ? schema.items.type : 'value';
  return type === 'array' ? `${name}: a list of ${items}s` : `${name}: a ${type}`;
}

/** `tools/list` tools in the Docker MCP catalog's tools.json format. */
export function catalogTools(tools) {
  return [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => {
      const props = tool.inputSchema?.properties ?? {};
      const required = new Set(tool.inputSchema?.required ?? []);
      const names = Object.keys(props);
      const ordered = [...names.filter((n) => required.has(n)).sort(), ...names.filter((n) => !required.has(n)).sort()];
      const args = ordered.map((name) => {
        const schema = props[name] ?? {};
        const type = typeof schema.type === 'string' ? schema.type : 'string';
        const arg = { name, type };
        if (type === 'array') arg.items = { type: typeof schema.items?.type === 'string' ? schema.items.type : 'string' };
        arg.desc = argumentDescription(name, schema, type, tool.description);
        if (!required.has(name)) arg.optional = true;
        return arg;
      });
      const entry = { name: tool.name, description: withoutArgs(tool.description) };
      if (args.length > 0) entry.arguments = args;
      const a = tool.annotations ?? {};
      const annotations = {};
      if (a.title) annotations.title = a.title;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])
        if (a[hint] === true) annotations[hint] = true;
      if (Object.keys(annotations).length > 0) entry.annotations = annotations;
      return entry;
    });
}

/** A YAML scalar: bare when safe, else double-quoted (JSON's escaping is valid YAML). */
const scalar = (v) =>
  /^[A-Za-z0-9][\w ./@()-]*$/.test(v) && !/: | #/.test(v) && !/^(true|false|null|yes|no|on|off)$/i.test(v) ? v : JSON.stringify(v);

/** The catalog's server.yaml of a server (its image on Docker Hub; the source commit is pinned when submitting). */
export function serverYaml(server) {
  const doc = JSON.parse(readFileSync(join(server.path, 'server.json'), 'utf8'));
  const extra = CATALOG[server.dir];
  if (!extra) throw new Error(`${server.dir} has no entry in CATALOG (tooling/scripts/gen-catalog.mjs): give it a category and tags`);
  const short = server.dir.replace(/^server-/, '');
  const out = [
    `name: mcpkit-${short}`,
    `image: mcpkit/${server.dir}`,
    'type: server',
    'meta:',
    `  category: ${extra.category}`,
    '  tags:',
    ...extra.tags.map((t) => `    - ${scalar(t)}`),
    'about:',
    `  title: ${scalar(doc.title)}`,
    `  description: ${scalar(doc.description)}`,
    'source:',
    `  project: ${doc.repository.url}`,
    '  branch: main',
    '  dockerfile: tooling/images/Dockerfile',
    `  buildTarget: ${short}`,
  ];
  if (extra.run) {
    out.push('run:');
    if (extra.run.command) out.push('  command:', ...extra.run.command.map((c) => `    - ${scalar(c)}`));
    if (extra.run.volumes) out.push('  volumes:', ...extra.run.volumes.map((v) => `    - ${scalar(v)}`));
  }
  if (extra.config) {
    out.push('config:', `  description: ${scalar(extra.config.description)}`, '  parameters:', '    type: object', '    properties:');
    for (const [name, p] of Object.entries(extra.config.parameters)) {
      out.push(`      ${name}:`, `        type: ${p.type}`);
      if (p.default !== undefined) out.push(`        default: ${scalar(p.default)}`);
    }
    out.push('    required:', ...extra.config.required.map((r) => `      - ${r}`));
  }
  return `${out.join('\n')}\n`;
}

export const catalogDir = (server) => join(server.path, 'catalog');
export const toolsJsonText = (tools) => `${JSON.stringify(catalogTools(tools), null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const { selected } = selectServersOrExit(
    'catalog',
    process.argv.slice(2).filter((a) => a !== '--check'),
  );
  let stale = 0;
  for (const server of selected) {
    const files = { 'server.yaml': serverYaml(server), 'tools.json': toolsJsonText(await listToolsOverStdio(server)) };
    for (const [name, text] of Object.entries(files)) {
      const file = join(catalogDir(server), name);
      let current;
      try {
        current = readFileSync(file, 'utf8');
      } catch {}
      if (current === text) continue;
      stale++;
      if (check) console.error(`[catalog] ${relative(root, file)} is not current (run node tooling/scripts/gen-catalog.mjs)`);
      else {
        mkdirSync(catalogDir(server), { recursive: true });
        writeFileSync(file, text);
        console.log(`[catalog] wrote ${relative(root, file)}`);
      }
    }
  }
  if (check && stale > 0) process.exit(1);
  console.log(`[catalog] ${check ? 'current' : 'done'}: ${selected.map((s) => s.dir).join(', ')}`);
}
