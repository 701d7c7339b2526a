#!/usr/bin/env node
// The first release, as CONTRIBUTING's "Releases" runs it and as a user then meets it, against a registry on
// loopback (verdaccio) instead of npm:
//   1. clones HEAD into a temp folder and installs it (the pnpm store is warm from the checkout's install);
//   2. `pnpm version-packages` there, without GITHUB_TOKEN: versions, CHANGELOGs, server.json, the notes gone;
//   3. checks what that wrote: check-readmes passes (no "Not on npm yet" note left on a versioned package), and each
//      first CHANGELOG is one entry saying what the package is (the package's initial changeset), not its history;
//   4. builds, starts verdaccio on 127.0.0.1 (its own storage; third-party packages through it from npm), makes a
//      user, and runs tooling/scripts/publish.mjs against it — the script `pnpm release` runs;
//   5. checks each published tarball's files (README without the note, LICENSE, server.json for servers, no
//      tests, no source maps of tests), then `npx -y <package>` of every server in an empty folder with an empty
//      npm cache lists its tools over stdio, and `npx -y @mcpkit/agent-cli --version` prints its version.
// Exits 1 on any failure, naming the package and the problem. `--keep` leaves the temp folder; `--reuse <folder>`
// starts from such a kept folder at the registry step (its clone already versioned and built).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOT_ON_NPM } from './check-readmes.mjs';
import {
  createSteps,
  freePortNumber,
  mapLimit,
  PNPM,
  publicPackages,
  quietEnv,
  REFERENCE_SERVER_VERSION,
  removeTemp,
  resolveNode22Tool,
  root,
  run,
  smoke,
  startProcess,
  tail,
} from './lib.mjs';

const VERDACCIO = 'verdaccio@6.10.4';
const reuseAt = process.argv.indexOf('--reuse');
const reuse = reuseAt > 0 ? process.argv[reuseAt + 1] : undefined;
const keep = process.argv.includes('--keep') || reuse !== undefined;
const { step, conclude } = createSteps('release');
/** Each step needs the one before: the first failure ends the run (its reason is already printed). */
const chain = async (name, fn) => {
  if (!(await step(name, fn))) throw new StepFailed();
};
class StepFailed extends Error {}
const tmp = reuse ?? mkdtempSync(join(tmpdir(), 'mcpkit-release-'));
const repo = join(tmp, 'repo');
const baseEnv = { ...quietEnv };
delete baseEnv.GITHUB_TOKEN;
for (const key of Object.keys(baseEnv))
  if (/^(npm|pnpm)_config_/i.test(key) && !/^npm_config_(fund|audit|update_notifier)$/.test(key)) delete baseEnv[key];

function must(res, what) {
  if (res.status !== 0) throw new Error(`${what} exited ${res.status ?? res.signal}\n${tail(res.output, 40)}`);
  return res;
}

let verdaccio;
try {
  if (!reuse)
    await chain('clone HEAD and install (frozen lockfile, warm store)', () => {
      must(run('git', ['clone', '--quiet', '--no-local', root, repo]), 'git clone');
      must(
        run(PNPM[0], [...PNPM.slice(1), 'install', '--frozen-lockfile', '--prefer-offline'], { cwd: repo, env: baseEnv }),
        'pnpm install',
      );
    });

  if (!reuse)
    await chain('pnpm version-packages (no GITHUB_TOKEN: plain changelog entries)', () => {
      const res = must(run(PNPM[0], [...PNPM.slice(1), 'version-packages'], { cwd: repo, env: baseEnv }), 'pnpm version-packages');
      console.log(`[release]   ${res.output.split('\n').filter((l) => l.startsWith('[notes]')).length} notes removed`);
    });

  const packages = publicPackages(repo);
  await chain('every package versioned; READMEs without the note; first CHANGELOGs say what each package is', () => {
    const problems = [];
    for (const pkg of packages) {
      if (pkg.version === '0.0.0') problems.push(`${pkg.name}: still 0.0.0 after version-packages (no initial changeset?)`);
      const readme = readFileSync(join(pkg.path, 'README.md'), 'utf8');
      if (readme.includes(NOT_ON_NPM)) problems.push(`${pkg.name}: README still has the "Not on npm yet" note`);
      const changelog = readFileSync(join(pkg.path, 'CHANGELOG.md'), 'utf8');
      const entries = changelog.split('\n').filter((l) => /^- [0-9a-f]{7}: /.test(l));
      if (entries.length !== 1)
        problems.push(`${pkg.name}: its first CHANGELOG has ${entries.length} entries, expected 1 (its initial changeset)`);
      if (!/^- [0-9a-f]{7}: First release/m.test(changelog))
        problems.push(`${pkg.name}: its CHANGELOG entry does not start with "First release"`);
    }
    if (readFileSync(join(repo, 'README.md'), 'utf8').includes(NOT_ON_NPM)) problems.push('README.md still has the "Not on npm yet" note');
    must(run('node', ['tooling/scripts/check-readmes.mjs'], { cwd: repo, env: baseEnv }), 'check-readmes');
    if (problems.length > 0) throw new Error(problems.join('\n'));
    console.log(`[release]   ${packages.length} packages at ${[...new Set(packages.map((p) => p.version))].join(', ')}`);
  });

  if (!reuse)
    await chain('build the versioned packages', () => {
      must(
        run(PNPM[0], [...PNPM.slice(1), 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: repo, env: baseEnv }),
        'turbo build',
      );
    });

  const port = await freePortNumber();
  const registry = `http://127.0.0.1:${port}/`;
  const storage = mkdtempSync(join(tmp, 'verdaccio-'));
  const npmrc = join(tmp, 'npmrc');
  const env = { ...baseEnv, npm_config_registry: registry, npm_config_userconfig: npmrc };

  await chain(`verdaccio on ${registry}`, async () => {
    writeFileSync(
      join(storage, 'config.yaml'),
      [
        `storage: ${join(storage, 'storage')}`,
        'auth:',
        '  htpasswd:',
        `    file: ${join(storage, 'htpasswd')}`,
        'uplinks:',
        '  npmjs:',
        '    url: https://registry.npmjs.org/',
        '    timeout: 60s',
        'packages:',
        "  '@mcpkit/*':",
        '    access: $all',
        '    publish: $authenticated',
        "  '**':",
        '    access: $all',
        '    proxy: npmjs',
        'logs: { type: stdout, format: pretty, level: warn }',
        '',
      ].join('\n'),
    );
    writeFileSync(npmrc, '');
    // verdaccio 6 needs Node 22: npm's node@22 package, as for the conformance suite and the Inspector.
    const tool = resolveNode22Tool(VERDACCIO, 'verdaccio', tmp);
    verdaccio = startProcess(
      tool.node,
      [tool.bin, '--config', join(storage, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
      { cwd: tmp, env: baseEnv, ready: () => false, timeoutMs: 600_000 }, // readiness: the ping below
    );
    verdaccio.started.catch(() => {});
    const deadline = Date.now() + 180_000;
    for (;;) {
      try {
        if ((await fetch(`${registry}-/ping`)).ok) break;
      } catch {}
      if (verdaccio.child.exitCode !== null || verdaccio.child.signalCode !== null)
        throw new Error(`verdaccio exited before it answered\n${tail(verdaccio.output(), 30)}`);
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer within 180 s\n${tail(verdaccio.output(), 30)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const res = await fetch(`${registry}-/user/org.couchdb.user:release-check`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'release-check', password: `pw-${process.pid}-${Date.now()}`, type: 'user' }),
    });
    const { token } = await res.json();
    if (!res.ok || !token) throw new Error(`verdaccio refused the user: ${res.status}`);
    writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  });

  await chain('tooling/scripts/publish.mjs against it (what pnpm release runs)', () => {
    const res = must(
      run('node', ['tooling/scripts/publish.mjs', '--registry', registry, '--no-git-tag'], { cwd: repo, env }),
      'publish.mjs',
    );
    const tags = res.stdout.split('\n').filter((l) => l.startsWith('New tag: '));
    if (tags.length !== packages.length) throw new Error(`published ${tags.length} of ${packages.length}\n${res.output}`);
    console.log(`[release]   ${tags.length} packages`);
  });

  await chain('published tarballs: README without the note, LICENSE, server.json for servers, no tests', () => {
    const problems = [];
    const packDir = mkdtempSync(join(tmp, 'fetched-'));
    for (const pkg of packages) {
      const res = must(
        run('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', packDir, '--json'], { cwd: tmp, env }),
        `npm pack ${pkg.name}`,
      );
      const [{ files }] = JSON.parse(res.stdout);
      const paths = new Set(files.map((f) => f.path));
      for (const required of ['README.md', 'LICENSE', 'package.json', ...(pkg.server ? ['server.json'] : [])])
        if (!paths.has(required)) problems.push(`${pkg.name}: the tarball has no ${required}`);
      for (const p of paths)
        if (/(^|\/)(test|tests|__tests__)\/|\.test\.[cm]?[jt]s$/.test(p)) problems.push(`${pkg.name}: the tarball ships ${p}`);
      const tgz = join(packDir, readdirSync(packDir).find((f) => f.startsWith(pkg.name.replace('@', '').replace('/', '-'))) ?? 'missing');
      const readme = run('tar', ['-xzOf', tgz, 'package/README.md']);
      if (readme.status !== 0) problems.push(`${pkg.name}: could not read README.md from ${tgz}`);
      else if (readme.stdout.includes(NOT_ON_NPM)) problems.push(`${pkg.name}: the published README still says "Not on npm yet"`);
    }
    if (problems.length > 0) throw new Error(problems.join('\n'));
    console.log(`[release]   ${packages.length} tarballs`);
  });

  await chain('npx -y of every server in an empty folder with an empty npm cache: tools/list over stdio', async () => {
    const servers = packages.filter((p) => p.server);
    const results = await mapLimit(servers, 2, async (pkg) => {
      const dir = mkdtempSync(join(tmp, `use-${pkg.dir}-`));
      const useEnv = { ...env, npm_config_cache: join(dir, '.npm-cache') };
      const expected = REFERENCE_SERVER_VERSION[pkg.name] ?? pkg.version;
      const problems = await smoke(dir, ['npx', '-y', pkg.name], expected, { env: useEnv, timeoutMs: 240_000 });
      return problems.map((p) => `${pkg.name}: ${p}`);
    });
    const cli = packages.find((p) => p.name === '@mcpkit/agent-cli');
    if (cli) {
      const dir = mkdtempSync(join(tmp, 'use-agent-cli-'));
      const res = run('npx', ['-y', cli.name, '--version'], { cwd: dir, env: { ...env, npm_config_cache: join(dir, '.npm-cache') } });
      if (res.status !== 0 || !res.stdout.includes(cli.version)) results.push([`${cli.name}: npx -y … --version: ${tail(res.output, 10)}`]);
    }
    const problems = results.flat();
    if (problems.length > 0) throw new Error(problems.join('\n'));
    console.log(`[release]   ${servers.length} servers${cli ? ' and mcp-agent' : ''}`);
  });
} catch (error) {
  if (!(error instanceof StepFailed)) throw error;
} finally {
  await verdaccio?.stop();
  removeTemp('release', tmp, keep);
}
conclude('versioned, published to a loopback registry and started with npx -y as a user would');
