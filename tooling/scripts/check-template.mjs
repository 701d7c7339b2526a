#!/usr/bin/env node
// Proves `pnpm new:server` produces a package that installs, lints, typechecks, builds and passes its own
// unit and stdio tests, without touching this checkout:
//
//   node tooling/scripts/check-template.mjs [--name <probe>] [--keep]
//
// 1. copies a pruned repository to a temp dir: the files git tracks (as they are in the working tree) at the root,
//    in packages/protocol-core and the workspace packages it depends on (@mcpkit/net), tooling/templates,
//    tooling/scripts and tooling/registry, plus the untracked (not ignored) files there, so an uncommitted change is
//    what gets checked. Other packages and apps are left out: a new server needs none of them, and their work in
//    progress must not fail this check;
// 2. checks the template's build/test config files are the model server's (packages/server-sequential-thinking);
// 3. installs from the pnpm store (--offline; falls back to --prefer-offline, which a new machine needs because
//    the store lacks registry metadata), runs new-server there, installs again (same fallback) to link it;
// 4. lints the new files with the repo's Biome config, typechecks, builds it with protocol-core (turbo, reading
//    this checkout's cache: protocol-core and net come from it when this checkout built them), runs its
//    unit tests and its stdio smoke test against the built bin, and checks its server.json (check-registry.mjs);
// 5. removes the temp dir (--keep leaves it for inspection). Exits 1 if any step failed.
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSteps, PNPM, quietEnv, removeTemp, root, run, workspaceClosure, workspacePackages } from './lib.mjs';

const { values } = parseArgs({ options: { name: { type: 'string', default: 'template-probe' }, keep: { type: 'boolean' } } });
const name = values.name;
const pkg = `@mcpkit/server-${name}`;
const { step, conclude } = createSteps('template');
const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-template-'));
const pnpm = (args, opts = {}) => run(PNPM[0], [...PNPM.slice(1), ...args], { cwd: tmp, ...opts });
// The build goes through turbo reading this checkout's cache (read only): protocol-core and net have the same task
// hashes in the copy (the same files), so a checkout that built them gives their dist/ and only the new server is
// built; without such a build they are built here as before. (For a git worktree turbo's cache is the main one's.)
const checkoutCache = join(
  dirname(run('git', ['rev-parse', '--path-format=absolute', '--git-common-dir']).stdout.trim()),
  '.turbo',
  'cache',
);
const buildWithTurbo = () =>
  pnpm(['exec', 'turbo', 'run', 'build', `--filter=${pkg}...`, '--cache=local:r', '--output-logs=errors-only'], {
    env: { ...quietEnv, TURBO_CACHE_DIR: checkoutCache },
  });
/**
 * `pnpm install` from the store (--offline), falling back to --prefer-offline: on a new machine the store has the
 * packages that `--frozen-lockfile` installed but not their registry metadata, which a non-frozen install needs
 * (ERR_PNPM_NO_OFFLINE_META).
 */
const installFromStore = () => {
  const offline = pnpm(['install', '--offline', '--no-frozen-lockfile']);
  if (offline.status === 0) return offline;
  console.log('[template]   the store lacks something; retrying with --prefer-offline');
  return pnpm(['install', '--prefer-offline', '--no-frozen-lockfile']);
};

/** Config files that must match the model server byte for byte, so scaffolds build and test the same way. */
const SHARED_CONFIG = ['tsup.config.ts', 'vitest.config.ts', 'vitest.stdio.config.ts', 'tsconfig.json'];

try {
  await step(`copy root config, protocol-core, template and scripts to ${tmp}`, () => {
    const list = (args) =>
      run('git', ['ls-files', '-z', ...args])
        .stdout.split('\0')
        .filter(Boolean);
    // protocol-core and the workspace packages it depends on (@mcpkit/net): what a new server builds with.
    const core = workspaceClosure(['@mcpkit/protocol-core'], workspacePackages()).map((p) => `packages/${p.dir}`);
    // protocol-core's tests take their fixtures from @mcpkit/test-utils (a devDependency, in tooling/).
    const dirs = [...core, 'tooling/test-utils', 'tooling/templates', 'tooling/scripts', 'tooling/registry'];
    const keep = (f) => !/^(packages|apps|tooling)\//.test(f) || dirs.some((d) => f.startsWith(`${d}/`));
    const files = new Set([...list([]), ...list(['--others', '--exclude-standard', '--', ...dirs])].filter(keep));
    let copied = 0;
    for (const file of files) {
      const source = join(root, file);
      if (!existsSync(source) || !lstatSync(source).isFile()) continue; // deleted in the working tree, or a symlink
      mkdirSync(dirname(join(tmp, file)), { recursive: true });
      copyFileSync(source, join(tmp, file));
      copied++;
    }
    // Biome reads .gitignore through git; the copy is its own (empty) repository.
    const init = run('git', ['init', '-q'], { cwd: tmp });
    return copied > 0 ? init : 'git ls-files listed nothing';
  });

  // Against the committed model (HEAD), so someone's uncommitted work on the model server can't fail this step.
  await step('template config files match packages/server-sequential-thinking (HEAD)', () => {
    const drift = SHARED_CONFIG.filter(
      (f) =>
        readFileSync(join(tmp, 'tooling/templates/server', f), 'utf8') !==
        run('git', ['show', `HEAD:packages/server-sequential-thinking/${f}`]).stdout,
    );
    return drift.length === 0
      ? true
      : `${drift.join(', ')} differ: copy them from packages/server-sequential-thinking to tooling/templates/server`;
  });

  const installed = await step('pnpm install (offline, from the store)', installFromStore);

  const scaffolded =
    installed &&
    (await step(`new-server ${name}`, () => {
      const res = run(process.execPath, ['tooling/scripts/new-server.mjs', name], { cwd: tmp });
      if (res.status !== 0) return res;
      const expected = [
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        'server.json',
        'src/index.ts',
        'src/server.ts',
        'src/config.ts',
        'src/version.ts',
        'src/tools/echo.ts',
        'src/tools/index.ts',
        'test/server.test.ts',
        'test/eras.test.ts',
        'test/server.stdio.test.ts',
      ].filter((f) => !existsSync(join(tmp, 'packages', `server-${name}`, f)));
      if (!existsSync(join(tmp, '.changeset', `server-${name}-initial.md`))) expected.push(`.changeset/server-${name}-initial.md`);
      return expected.length === 0 ? res : `missing after scaffolding: ${expected.join(', ')}`;
    }));

  if (scaffolded) {
    await step('new-server refuses an existing name', () => {
      const again = run(process.execPath, ['tooling/scripts/new-server.mjs', name], { cwd: tmp });
      return again.status !== 0 && /already exists/.test(again.stderr) ? true : `expected a refusal, got exit ${again.status}`;
    });
    await step('new-server refuses an invalid name', () => {
      const bad = run(process.execPath, ['tooling/scripts/new-server.mjs', 'Bad_Name'], { cwd: tmp });
      return bad.status === 2 ? true : `expected exit 2, got ${bad.status}`;
    });
    const linked = await step('pnpm install (links the new package)', installFromStore);
    if (linked) {
      await step('biome ci (the new package and its changeset)', () =>
        pnpm(['exec', 'biome', 'ci', `packages/server-${name}`, `.changeset/server-${name}-initial.md`]),
      );
      await step('typecheck', () => pnpm(['--filter', pkg, 'run', 'typecheck']));
      await step('unit tests (in-process, from source)', () => pnpm(['--filter', pkg, 'run', 'test']));
      const built = await step("build (with protocol-core; turbo, this checkout's cache read only)", buildWithTurbo);
      if (built) await step('stdio tests (spawn the built bin)', () => pnpm(['--filter', pkg, 'run', 'test:stdio']));
      if (built)
        await step('server.json: MCP Registry schema, package.json and the built --help agree (check-registry)', () =>
          run(process.execPath, ['tooling/scripts/check-registry.mjs'], { cwd: tmp }),
        );
    }
  }
} finally {
  removeTemp('template', tmp, values.keep);
}

conclude('a scaffolded server installs, lints, typechecks, builds and passes its tests');
