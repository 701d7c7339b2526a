// Building the OCI images (tooling/images/Dockerfile) with podman: the engine's setup, the build context (the packed
// tarballs), a local base image for machines that reach no container registry, and the builds. Used by
// build-images.mjs (a release builds and pushes them) and check-images.mjs (CI builds and drives them).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { binOf, mapLimit, PNPM, quietEnv, root, run, runAsync, workspaceClosure, workspacePackages } from './lib.mjs';

export const IMAGES_DIR = join(root, 'tooling', 'images');
export const DOCKERFILE = join(IMAGES_DIR, 'Dockerfile');
/** Where the images are published: `docker.io/mcpkit/server-<name>:<version>` (server.json's OCI identifier). */
export const IMAGE_REPOSITORY = 'docker.io/mcpkit';
/** runc, not crun: the runtime that starts containers on these machines (Debian's podman, a sandboxed kernel). */
export const RUNC = '/usr/sbin/runc';

/** The Dockerfile stage of a server: `server-memory` → `memory`. */
export const stageOf = (server) => server.dir.replace(/^server-/, '');
/** The image name of a server, without registry and tag: `mcpkit/server-memory`. */
export const imageName = (server) => `${IMAGE_REPOSITORY.replace(/^docker\.io\//, '')}/${server.dir}`;

/** The stages tooling/images/Dockerfile defines (`FROM … AS <name>`). */
export function dockerfileStages(text = readFileSync(DOCKERFILE, 'utf8')) {
  return [...text.matchAll(/^FROM\s+\S+\s+AS\s+([a-z0-9-]+)\s*$/gim)].map((m) => m[1]);
}

/** The literal LABELs of one stage of the Dockerfile (`LABEL a="b" \` continuation lines joined). */
export function stageLabels(stage, text = readFileSync(DOCKERFILE, 'utf8')) {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${stage}\\s*$`, 'i').test(l));
  if (start === -1) return undefined;
  const labels = {};
  for (const line of lines.slice(start + 1)) {
    if (/^FROM\s/i.test(line)) break;
    if (!/^LABEL\s/i.test(line)) continue;
    for (const m of line.matchAll(/([a-z0-9.-]+)="([^"]*)"/gi)) labels[m[1]] = m[2];
  }
  return labels;
}

/** The ENTRYPOINT the Dockerfile must give a server: node and its bin, as npm installs it under /app. */
export function expectedEntrypoint(server) {
  const [, path] = binOf(server.manifest);
  return ['node', `/app/node_modules/${server.name}/${path.replace(/^\.\//, '')}`];
}

/**
 * podman ready to use: installed with apt-get when missing (`install`: only as root on Debian), with a
 * containers.conf of ours (`CONTAINERS_CONF`, nothing under /etc touched) that sets no default ulimits (podman's
 * default nofile limit cannot be set in these sandboxes) and runc. Returns `{ env, podman(args) }`, or
 * `{ problem }` saying why not.
 */
export function setupPodman({ install = true, confDir = mkdtempSync(join(tmpdir(), 'mcpkit-podman-')) } = {}) {
  const have = () => run('sh', ['-c', 'command -v podman && test -x /usr/sbin/runc']).status === 0;
  if (!have()) {
    if (!install) return { problem: 'podman (with runc) is not installed' };
    if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get'))
      return { problem: 'podman (with runc) is not installed, and apt-get is not usable here (not root on Debian)' };
    const env = { ...quietEnv, DEBIAN_FRONTEND: 'noninteractive' };
    let res = run('apt-get', ['install', '-y', '--no-install-recommends', 'podman', 'runc'], { env, timeoutMs: 10 * 60_000 });
    if (res.status !== 0) {
      // A machine whose package lists are old or missing: refresh them once and try again.
      run('apt-get', ['update'], { env, timeoutMs: 5 * 60_000 });
      res = run('apt-get', ['install', '-y', '--no-install-recommends', 'podman', 'runc'], { env, timeoutMs: 10 * 60_000 });
    }
    if (res.status !== 0 || !have()) return { problem: `apt-get install podman runc failed:\n${res.output.slice(-2000)}` };
  }
  const conf = join(confDir, 'containers.conf');
  writeFileSync(conf, `[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n`);
  const env = { ...quietEnv, CONTAINERS_CONF: conf };
  const podman = (args, options = {}) => run('podman', ['--runtime', RUNC, ...args], { env, ...options });
  const podmanAsync = (args, options = {}) => runAsync('podman', ['--runtime', RUNC, ...args], { env, ...options });
  const probe = podman(['info', '--format', '{{.Host.OCIRuntime.Name}}'], { timeoutMs: 60_000 });
  if (probe.status !== 0) return { problem: `podman does not run here:\n${probe.output.slice(-2000)}` };
  return { env, podman, podmanAsync, conf };
}

/**
 * The build context in `dir`: `tarballs/` with `pnpm pack` of every selected server and the workspace packages
 * it depends on, and `tarballs/index.json` naming each server's tarballs (what its install stage installs);
 * install.mjs and healthcheck.mjs beside them. Returns `{ problems }`.
 */
export async function writeContext(dir, servers) {
  const workspace = workspacePackages();
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  for (const file of ['install.mjs', 'healthcheck.mjs']) copyFileSync(join(IMAGES_DIR, file), join(dir, file));
  const packages = workspaceClosure(
    servers.map((s) => s.name),
    workspace,
  );
  const problems = [];
  const fileOf = new Map();
  // pnpm pack of each package into a folder of its own (then moved), so parallel packs never mix up their outputs.
  await mapLimit(packages, 3, async (pkg) => {
    if (!existsSync(join(pkg.path, 'dist'))) {
      problems.push(`${pkg.manifest.name} is not built (no dist/): run the build first (pnpm build)`);
      return;
    }
    const out = mkdtempSync(join(dir, 'pack-'));
    const res = await runAsync(PNPM[0], [...PNPM.slice(1), 'pack', '--pack-destination', out], { cwd: pkg.path });
    const created = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('.tgz')) : [];
    if (res.status !== 0 || created.length !== 1) {
      problems.push(`${pkg.manifest.name}: pnpm pack failed (exit ${res.status}):\n${res.output.slice(-1500)}`);
      return;
    }
    copyFileSync(join(out, created[0]), join(tarballs, created[0]));
    fileOf.set(pkg.manifest.name, created[0]);
  });
  const index = { servers: {} };
  for (const server of servers) {
    const names = workspaceClosure([server.name], workspace).map((p) => p.manifest.name);
    if (names.every((n) => fileOf.has(n))) index.servers[server.dir] = names.map((n) => fileOf.get(n));
  }
  writeFileSync(join(tarballs, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  return { problems };
}

/**
 * A base image made of this machine's Node: its node binary and shared libraries, its npm, `env` (npm's shebang),
 * `id` and `chown` (what the READMEs run in an image), the CA certificates, /tmp, and root plus a `node` user (uid
 * 1000) as in the official Node images. For CI, which reaches npm but no container registry. Imported once per
 * Node build (the tag is a hash of what went in), then reused.
 */
export function localBase(podman) {
  const node = process.execPath;
  const npmDir = join(dirname(dirname(node)), 'lib', 'node_modules', 'npm');
  if (!existsSync(join(npmDir, 'package.json'))) return { problem: `no npm next to ${node} (looked in ${npmDir})` };
  const tools = ['/usr/bin/env', '/usr/bin/id', '/bin/chown'].filter((t) => existsSync(t));
  const npmVersion = JSON.parse(readFileSync(join(npmDir, 'package.json'), 'utf8')).version;
  // The tag changes with what goes in: the Node and npm versions, the binary, and LAYOUT (bump it when this changes).
  const LAYOUT = 2;
  const tag = `${process.version.slice(1)}-npm${npmVersion}-${statSync(node).size.toString(36)}-l${LAYOUT}`;
  const image = `localhost/mcpkit-ci-base:${tag}`;
  if (podman(['image', 'exists', image]).status === 0) return { image, reused: true };

  const ldd = run('ldd', [node, ...tools]);
  if (ldd.status !== 0) return { problem: `ldd ${node} failed: ${ldd.output}` };
  const libs = [...new Set([...ldd.stdout.matchAll(/(\/\S+\.so[.\d]*)/g)].map((m) => m[1]))].filter((l) => existsSync(l));
  const extra = mkdtempSync(join(tmpdir(), 'mcpkit-base-'));
  for (const d of ['etc/ssl/certs', 'tmp', 'root', 'home/node', 'usr/bin', 'usr/local/bin']) mkdirSync(join(extra, d), { recursive: true });
  writeFileSync(join(extra, 'etc/passwd'), 'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000::/home/node:/usr/sbin/nologin\n');
  writeFileSync(join(extra, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
  if (existsSync('/etc/ssl/certs/ca-certificates.crt'))
    copyFileSync('/etc/ssl/certs/ca-certificates.crt', join(extra, 'etc/ssl/certs/ca-certificates.crt'));
  // The machine's files straight from / (tar follows no symlink in a path it is given: -h dereferences the libraries'
  // links, which ldd names), the generated ones from `extra`, then npm's bin links; one tar stream into podman import.
  const script = [
    'set -e',
    `tar -cf "$1/base.tar" --owner=0 --group=0 -C / ${[node, ...tools].map((p) => p.slice(1)).join(' ')}`,
    `tar -rhf "$1/base.tar" --owner=0 --group=0 -C / ${libs.map((p) => p.slice(1)).join(' ')}`,
    `tar -rf "$1/base.tar" --owner=0 --group=0 -C / ${npmDir.slice(1)}`,
    'cd "$1/extra" && chmod 1777 tmp && chmod 700 root',
    `ln -s ../lib/node_modules/npm/bin/npm-cli.js usr/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js usr/bin/npx`,
    'tar -rf "$1/base.tar" --owner=0 --group=0 etc/passwd etc/group etc/ssl tmp root usr/bin/npm usr/bin/npx usr/local',
    'tar -rf "$1/base.tar" --owner=1000 --group=1000 home/node',
  ];
  // node under /usr/bin, npm under /usr/lib: the layout of Debian's and NodeSource's packages (and this machine's).
  if (!node.startsWith('/usr/bin/')) return { problem: `node is ${node}, not under /usr/bin: the local base expects the packaged layout` };
  const work = dirname(extra);
  const staged = mkdtempSync(join(work, 'mcpkit-base-tar-'));
  run('mv', [extra, join(staged, 'extra')]);
  const tar = run('bash', ['-c', script.join('\n'), 'base', staged], { timeoutMs: 5 * 60_000 });
  if (tar.status !== 0) return { problem: `making the base tarball failed:\n${tar.output.slice(-2000)}` };
  const imported = podman(
    // The machine's CA bundle for Node too: what npm (in the install stage) must trust to reach the registry from here.
    [
      'import',
      '--change',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      '--change',
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      '--change',
      'WORKDIR /',
      join(staged, 'base.tar'),
      image,
    ],
    { timeoutMs: 5 * 60_000 },
  );
  run('rm', ['-rf', staged]);
  if (imported.status !== 0) return { problem: `podman import failed:\n${imported.output.slice(-2000)}` };
  return { image, reused: false };
}

/**
 * Builds one server's image from the context: target its stage, BASE as given, the version and revision labels;
 * docker format, since the OCI image format has no HEALTHCHECK. `volumes` are bind mounts for RUN (npm's cache).
 */
export function buildImage(podmanAsync, { context, server, base, tag, revision, volumes = [] }) {
  const args = [
    'build',
    '--format',
    'docker',
    '--network',
    'host',
    '--file',
    DOCKERFILE,
    '--target',
    stageOf(server),
    '--build-arg',
    `BASE=${base}`,
    '--build-arg',
    `VERSION=${server.manifest.version}`,
    '--build-arg',
    `REVISION=${revision}`,
    ...volumes.flatMap((v) => ['--volume', v]),
    '--tag',
    tag,
    context,
  ];
  return podmanAsync(args, { timeoutMs: 15 * 60_000 });
}

/** The commit the images are built from (their revision label), or `unknown` outside a git checkout. */
export function gitRevision() {
  const res = run('git', ['rev-parse', 'HEAD']);
  return res.status === 0 ? res.stdout.trim() : 'unknown';
}
