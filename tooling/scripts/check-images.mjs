#!/usr/bin/env node
// Builds every server's OCI image (tooling/images/Dockerfile) from the packed tarballs with podman and drives it as a
// user would: `podman run -i --rm` over stdio (initialize + tools/list), `--transport http` with the official SDK
// client (tools/list equal to catalog/tools.json, /healthz, the image's HEALTHCHECK), memory with a named volume
// that survives a new container (and a reference user's volume, after the README's chown), git with a bind-mounted
// repository, and the image itself: labels, a non-root user, the entry point.
//
//   node tooling/scripts/check-images.mjs [server…] [--base IMAGE] [--keep]      (pnpm check:images)
//
// No container registry is reachable here, so the base image is made from this machine's Node (images.mjs,
// localBase) unless --base names one, e.g. node:22-bookworm-slim where a registry is.
// podman and runc are installed with apt-get when missing. Without podman: with CI set, a failure; else a skip.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { catalogDir, sdkClient, serverYaml, toolsJsonText } from './gen-catalog.mjs';
import {
  buildImage,
  dockerfileStages,
  expectedEntrypoint,
  gitRevision,
  localBase,
  RUNC,
  setupPodman,
  stageLabels,
  stageOf,
  writeContext,
} from './images.mjs';
import {
  createSteps,
  freePortNumber,
  mapLimit,
  REFERENCE_SERVER_VERSION,
  removeTemp,
  run,
  selectServersOrExit,
  smoke,
  startProcess,
} from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { keep: { type: 'boolean' }, base: { type: 'string' } },
});
const { step, conclude } = createSteps('images');
const { selected: servers } = selectServersOrExit('images', positionals);
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

const engine = setupPodman({ install: true });
if (engine.problem) {
  if (process.env.CI) {
    console.log(`[images] ✗ podman: ${engine.problem}`);
    process.exit(1);
  }
  console.log(`[images] skipped: ${engine.problem.split('\n')[0]} (CI fails here instead; apt-get install podman runc)`);
  process.exit(0);
}
const { podman, podmanAsync, env } = engine;
const PODMAN = ['podman', '--runtime', RUNC];
const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-images-'));
const suffix = `${process.pid}-${Date.now().toString(36)}`;
const tagOf = (server) => `localhost/mcpkit/${server.dir}:check-${suffix}`;
const cleanup = [];

/** A connected SDK client over stdio to `podman run -i --rm …args` (the client's StdioClientTransport spawns podman). */
async function stdioClient(server, args) {
  const { Client, StdioClientTransport } = sdkClient(server);
  const client = new Client({ name: 'mcpkit-check-images', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({ command: PODMAN[0], args: [...PODMAN.slice(1), 'run', '-i', '--rm', ...args], env, stderr: 'pipe' }),
  );
  return client;
}
const text = (result) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

try {
  await step('tooling/images/Dockerfile: a stage per server, its labels those of server.json', () => {
    const stages = dockerfileStages();
    const problems = [];
    for (const server of servers) {
      const doc = readJson(join(server.path, 'server.json'));
      const labels = stageLabels(stageOf(server));
      if (!labels) {
        problems.push(`${server.dir}: no stage "${stageOf(server)}" (have: ${stages.join(', ')}): add one, as the others`);
        continue;
      }
      const want = {
        'io.modelcontextprotocol.server.name': doc.name,
        'org.opencontainers.image.title': doc.title,
        'org.opencontainers.image.description': doc.description,
        'org.opencontainers.image.url': doc.websiteUrl,
      };
      for (const [k, v] of Object.entries(want))
        if (labels[k] !== v)
          problems.push(`${server.dir}: LABEL ${k} is ${JSON.stringify(labels[k])}, server.json says ${JSON.stringify(v)}`);
    }
    return problems.length === 0 ? true : problems.join('; ');
  });

  await step('catalog/server.yaml of each server is current (node tooling/scripts/gen-catalog.mjs writes it)', () => {
    const stale = servers.filter((server) => {
      try {
        return readFileSync(join(catalogDir(server), 'server.yaml'), 'utf8') !== serverYaml(server);
      } catch {
        return true;
      }
    });
    return stale.length === 0 ? true : `not current: ${stale.map((s) => `${s.dir}/catalog/server.yaml`).join(', ')}`;
  });

  const baseImage = values.base;
  let base = baseImage;
  await step(baseImage ? `base image ${baseImage}` : "base image from this machine's Node (no container registry here)", () => {
    if (baseImage) return true;
    const made = localBase(podman);
    if (made.problem) return made.problem;
    base = made.image;
    console.log(`[images]   ${made.image} (${made.reused ? 'reused' : 'imported'})`);
    return true;
  });
  const context = join(tmp, 'context');
  mkdirSync(context);
  await step('build context: pnpm pack of every server and the workspace packages it needs', async () => {
    const { problems } = await writeContext(context, servers);
    return problems.length === 0 ? true : problems.join('; ');
  });

  // One after the other: the first builds the shared install stage (every server's npm install), the rest reuse it.
  // npm's cache from this machine is mounted for the installs (what check-pack just filled).
  const npmCache = run('npm', ['config', 'get', 'cache']).stdout.trim();
  if (npmCache) mkdirSync(npmCache, { recursive: true }); // a bind mount's source must exist
  const built = [];
  for (const server of servers) {
    const ok = await step(`${server.dir}: podman build --target ${stageOf(server)}`, () =>
      buildImage(podmanAsync, {
        context,
        server,
        base,
        tag: tagOf(server),
        revision: gitRevision(),
        volumes: npmCache ? [`${npmCache}:/root/.npm`] : [],
      }),
    );
    if (ok) {
      built.push(server);
      cleanup.push(() => podman(['rmi', '-f', tagOf(server)]));
    }
  }

  await mapLimit(built, 2, async (server) => {
    const image = tagOf(server);
    const doc = readJson(join(server.path, 'server.json'));
    await step(`${server.dir}: labels, a non-root USER, the bin as ENTRYPOINT, a HEALTHCHECK`, () => {
      const res = podman(['image', 'inspect', image]);
      if (res.status !== 0) return res;
      const data = JSON.parse(res.stdout)[0];
      const config = data.Config ?? {};
      const labels = config.Labels ?? {};
      const problems = [];
      const want = {
        'io.modelcontextprotocol.server.name': doc.name,
        'org.opencontainers.image.version': server.manifest.version,
        'org.opencontainers.image.title': doc.title,
        'org.opencontainers.image.source': doc.repository.url,
        'org.opencontainers.image.licenses': server.manifest.license,
      };
      for (const [k, v] of Object.entries(want))
        if (labels[k] !== v) problems.push(`label ${k} is ${JSON.stringify(labels[k])}, expected ${JSON.stringify(v)}`);
      if (!/^[0-9a-f]{40}$|^unknown$/.test(labels['org.opencontainers.image.revision'] ?? '')) problems.push('no revision label');
      if (!config.User || /^(root|0)(:|$)/.test(config.User)) problems.push(`User is ${JSON.stringify(config.User)}: must not be root`);
      if (JSON.stringify(config.Entrypoint) !== JSON.stringify(expectedEntrypoint(server)))
        problems.push(`Entrypoint is ${JSON.stringify(config.Entrypoint)}, expected ${JSON.stringify(expectedEntrypoint(server))}`);
      if (!(data.Healthcheck ?? config.Healthcheck)?.Test?.length) problems.push('no HEALTHCHECK (built in the OCI format?)');
      return problems.length === 0 ? true : problems.join('; ');
    });
    await step(`${server.dir}: podman run --entrypoint id … -u is not 0`, () => {
      const res = podman(['run', '--rm', '--network', 'none', '--entrypoint', 'id', image, '-u']);
      if (res.status !== 0) return res;
      return /^[1-9]\d*$/.test(res.stdout.trim()) ? true : `id -u printed ${JSON.stringify(res.stdout.trim())}`;
    });
    await step(`${server.dir}: podman run -i --rm answers initialize and tools/list over stdio`, async () => {
      const problems = await smoke(
        tmp,
        [...PODMAN, 'run', '-i', '--rm', '--network', 'none', image],
        REFERENCE_SERVER_VERSION[server.name] ?? server.manifest.version,
        {
          env,
          timeoutMs: 60_000,
        },
      );
      return problems.length === 0 ? true : problems.join('; ');
    });
    await step(
      `${server.dir}: --transport http (--network host): the SDK client lists catalog/tools.json's tools, /healthz, HEALTHCHECK`,
      async () => {
        const port = await freePortNumber();
        const name = `mcpkit-check-${server.dir}-${suffix}`;
        // PORT names another port: the flag wins, in the server and in the healthcheck (which reads both).
        const decoy = port === 65535 ? port - 1 : port + 1;
        const proc = startProcess(
          PODMAN[0],
          [
            ...PODMAN.slice(1),
            ...['run', '--rm', '--name', name, '--network', 'host', '-e', `PORT=${decoy}`, image],
            ...['--transport', 'http', '--port', String(port)],
          ],
          {
            env,
            ready: (out) => /listening on/.test(out),
            timeoutMs: 60_000,
          },
        );
        try {
          await proc.started;
          const { Client, StreamableHTTPClientTransport } = sdkClient(server);
          const client = new Client({ name: 'mcpkit-check-images', version: '0.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
          const { tools } = await client.listTools();
          await client.close();
          const expected = readFileSync(join(catalogDir(server), 'tools.json'), 'utf8');
          if (toolsJsonText(tools) !== expected)
            return `tools/list of the image differs from ${server.dir}/catalog/tools.json (run node tooling/scripts/gen-catalog.mjs)`;
          const health = await fetch(`http://127.0.0.1:${port}/healthz`);
          if (health.status !== 200) return `/healthz answered ${health.status}`;
          const check = podman(['healthcheck', 'run', name]);
          if (check.status !== 0) return `podman healthcheck run: exit ${check.status}: ${check.output.trim()}`;
          return true;
        } finally {
          podman(['stop', '--time', '5', name]);
          await proc.stop();
        }
      },
    );
  });

  const memory = built.find((s) => s.dir === 'server-memory');
  if (memory) {
    const image = tagOf(memory);
    const volume = `mcpkit-check-memory-${suffix}`;
    const reference = `mcpkit-check-reference-${suffix}`;
    cleanup.push(() => podman(['volume', 'rm', '-f', volume, reference]));
    await step('server-memory: an entity written through one container is read by the next, from the same named volume', async () => {
      const first = await stdioClient(memory, ['--network', 'none', '-v', `${volume}:/data`, image]);
      const created = await first.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
      });
      await first.close();
      if (created.isError) return `create_entities failed: ${text(created)}`;
      const second = await stdioClient(memory, ['--network', 'none', '-v', `${volume}:/data`, image]);
      const opened = await second.callTool({ name: 'open_nodes', arguments: { names: ['Ada'] } });
      await second.close();
      return text(opened).includes('wrote the first program') ? true : `open_nodes in a new container: ${text(opened).slice(0, 300)}`;
    });
    await step("server-memory: a reference user's volume (root's memory.jsonl) after the README's chown", async () => {
      const line = JSON.stringify({ type: 'entity', name: 'Grace', entityType: 'person', observations: ['from the reference image'] });
      const seed = podman([
        'run',
        '--rm',
        '--network',
        'none',
        '--user',
        'root',
        '-v',
        `${reference}:/app/dist`,
        '--entrypoint',
        'node',
        image,
        '-e',
        `require('fs').writeFileSync('/app/dist/memory.jsonl', ${JSON.stringify(`${line}\n`)})`,
      ]);
      if (seed.status !== 0) return seed;
      const chown = podman([
        'run',
        '--rm',
        '--network',
        'none',
        '--user',
        'root',
        '-v',
        `${reference}:/data`,
        '--entrypoint',
        'chown',
        image,
        '-R',
        'node:node',
        '/data',
      ]);
      if (chown.status !== 0) return chown;
      const client = await stdioClient(memory, ['--network', 'none', '-v', `${reference}:/data`, image]);
      const added = await client.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'Grace', contents: ['now on mcpkit'] }] },
      });
      const read = await client.callTool({ name: 'read_graph', arguments: {} });
      await client.close();
      if (added.isError) return `add_observations failed: ${text(added)}`;
      return text(read).includes('now on mcpkit') && text(read).includes('from the reference image')
        ? true
        : `read_graph: ${text(read).slice(0, 300)}`;
    });
    await step('server-memory: the HEALTHCHECK of a stdio container is healthy', async () => {
      const name = `mcpkit-check-stdio-${suffix}`;
      const proc = startProcess(PODMAN[0], [...PODMAN.slice(1), 'run', '-i', '--rm', '--name', name, '--network', 'none', image], {
        env,
        ready: (out) => /running on stdio/.test(out),
        timeoutMs: 60_000,
      });
      try {
        await proc.started;
        const check = podman(['healthcheck', 'run', name]);
        return check.status === 0 ? true : `podman healthcheck run: exit ${check.status}: ${check.output.trim()}`;
      } finally {
        proc.child.stdin.end();
        await proc.stop();
      }
    });
  }

  const git = built.find((s) => s.dir === 'server-git');
  if (git) {
    await step('server-git: git_status and git_add on a repository bind-mounted at its own path (--mount type=bind)', async () => {
      const repo = join(tmp, 'repo');
      mkdirSync(repo);
      const g = (...args) => run('git', ['-c', 'user.name=check', '-c', 'user.email=check@example.com', ...args], { cwd: repo });
      for (const args of [
        ['init', '-q', '-b', 'main'],
        ['commit', '-q', '--allow-empty', '-m', 'first'],
      ]) {
        const res = g(...args);
        if (res.status !== 0) return res;
      }
      writeFileSync(join(repo, 'notes.txt'), 'from the host\n');
      // The image's user (uid 1000) owns it, as a host user with that uid would; else the README's --user flag.
      const user = [];
      if (process.getuid?.() === 0) run('chown', ['-R', '1000:1000', repo]);
      else user.push('--user', `${process.getuid()}:${process.getgid()}`);
      chmodSync(repo, 0o755);
      const client = await stdioClient(git, [
        '--network',
        'none',
        ...user,
        '--mount',
        `type=bind,src=${repo},dst=${repo}`,
        tagOf(git),
        '--repository',
        repo,
      ]);
      try {
        const before = text(await client.callTool({ name: 'git_status', arguments: { repo_path: repo } }));
        const added = await client.callTool({ name: 'git_add', arguments: { repo_path: repo, files: ['notes.txt'] } });
        const after = text(await client.callTool({ name: 'git_status', arguments: { repo_path: repo } }));
        if (!before.includes('notes.txt')) return `git_status does not show the untracked file: ${before.slice(0, 300)}`;
        if (added.isError) return `git_add failed: ${text(added)}`;
        const staged = run('git', ['-c', 'safe.directory=*', 'diff', '--cached', '--name-only'], { cwd: repo });
        return staged.stdout.trim() === 'notes.txt'
          ? true
          : `after git_add the host's git sees ${JSON.stringify(staged.stdout)} staged; git_status: ${after.slice(0, 200)}`;
      } finally {
        await client.close();
      }
    });
  }
} finally {
  for (const undo of cleanup.reverse()) undo();
  removeTemp('images', tmp, values.keep);
}

conclude(`${servers.map((s) => s.dir).join(', ')}: images built from the tarballs, driven over stdio and HTTP`);
