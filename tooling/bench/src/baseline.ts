/**
 * The baseline: the server bins of an earlier build of this repository (by default `b44c64b`, the
 * last build on the v1 MCP SDK), materialised once into `tooling/bench/.baseline/<sha>/` (git-ignored)
 * and reused by later runs.
 *
 * Materialising = `git archive <sha> | tar -x` into `<sha>.partial/`, `pnpm install --frozen-lockfile
 * --prefer-offline` there, a build of only the packages the bench starts (and what they depend on),
 * then a rename to `<sha>/`. A directory without the `.partial` suffix is therefore complete; a failed
 * attempt leaves `<sha>.partial/` behind, and the next run continues in it. Each step is bounded in
 * time, and a failure names the step, the command and the end of its output.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The last build on SDK v1 (the commit before the v2 move started). */
export const DEFAULT_BASELINE = 'b44c64b';

/** The packages the bench starts from a baseline (their dependencies are built too). */
const BASELINE_PACKAGES = ['server-everything', 'server-memory', 'server-sequential-thinking'] as const;
type BaselinePackage = (typeof BASELINE_PACKAGES)[number];

const PNPM = ['-y', 'pnpm@10.34.8'];
const STEP_TIMEOUT_MS = { archive: 2 * 60_000, install: 10 * 60_000, build: 10 * 60_000 };

export interface Baseline {
  /** The ref as given (`b44c64b`, a tag, a branch). */
  ref: string;
  sha: string;
  /** The materialised checkout. */
  dir: string;
  /** True when this run built it, false when an earlier run's build was reused. */
  built: boolean;
  /** The built entry (`packages/<pkg>/dist/index.js`) of one of `BASELINE_PACKAGES`. */
  bin(pkg: BaselinePackage): string;
}

export interface MaterialiseOptions {
  repoRoot: string;
  benchDir: string;
  ref: string;
  /** Progress lines (the build takes minutes the first time). */
  print(text: string): void;
}

/**
 * Files of the checkout that tools of the live repository would pick up: Biome refuses to run when it
 * finds a second root `biome.json` anywhere below the repository (git-ignored or not). The build does
 * not need it.
 */
const NESTED_CONFIGS = ['biome.json'];
const neutralise = (dir: string) => {
  for (const file of NESTED_CONFIGS) rmSync(join(dir, file), { force: true });
};

const entry = (dir: string, pkg: BaselinePackage) => join(dir, 'packages', pkg, 'dist', 'index.js');
const complete = (dir: string) => BASELINE_PACKAGES.every((pkg) => existsSync(entry(dir, pkg)));

/** Runs one command (its own process group, so a timeout ends pnpm's children too); rejects with the step and the output's tail. */
function run(step: string, command: string, args: string[], options: { cwd: string; timeoutMs: number; stdin?: NodeJS.ReadableStream }) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, CI: '1' },
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-3000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    if (options.stdin && child.stdin) options.stdin.pipe(child.stdin);
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`baseline ${step}: \`${command} ${args.join(' ')}\` took longer than ${options.timeoutMs / 1000} s\n${tail}`));
    }, options.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`baseline ${step}: \`${command} ${args.join(' ')}\` could not start: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(tail);
      else reject(new Error(`baseline ${step}: \`${command} ${args.join(' ')}\` failed (${code ?? signal}) in ${options.cwd}\n${tail}`));
    });
  });
}

/** `git rev-parse` of `ref` to a full commit sha, or a clear error. */
async function resolveRef(repoRoot: string, ref: string): Promise<string> {
  const out = await run('ref', 'git', ['-C', repoRoot, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    cwd: repoRoot,
    timeoutMs: 30_000,
  }).catch(() => {
    throw new Error(`baseline: ${ref} is not a commit of ${repoRoot} (pass --baseline <ref> or BENCH_BASELINE=<ref>)`);
  });
  return out.trim();
}

/** `git archive <sha> | tar -x -C <dir>`. */
async function extract(repoRoot: string, sha: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const archive = spawn('git', ['-C', repoRoot, 'archive', '--format=tar', sha], { stdio: ['ignore', 'pipe', 'pipe'] });
  let gitErr = '';
  archive.stderr.on('data', (d: Buffer) => {
    gitErr += d.toString();
  });
  const gitDone = new Promise<void>((resolve, reject) =>
    archive.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`baseline archive: git archive ${sha} failed: ${gitErr}`)))),
  );
  await Promise.all([
    run('archive', 'tar', ['-x', '-C', dir], { cwd: dir, timeoutMs: STEP_TIMEOUT_MS.archive, stdin: archive.stdout }),
    gitDone,
  ]);
}

/**
 * The baseline build of `ref`: reused from `.baseline/<sha>/` when complete, else materialised
 * (minutes; bounded per step). Throws with the failed step's command and output.
 */
export async function materialiseBaseline(options: MaterialiseOptions): Promise<Baseline> {
  const { repoRoot, benchDir, ref, print } = options;
  const sha = await resolveRef(repoRoot, ref);
  const dir = join(benchDir, '.baseline', sha);
  const result = (built: boolean): Baseline => ({ ref, sha, dir, built, bin: (pkg) => entry(dir, pkg) });
  if (complete(dir)) {
    neutralise(dir);
    return result(false);
  }
  if (existsSync(dir)) throw new Error(`baseline: ${dir} exists but lacks a built dist; remove it and run again`);

  const partial = `${dir}.partial`;
  const started = performance.now();
  const step = (what: string) => print(`  baseline ${sha.slice(0, 9)}: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  if (!existsSync(join(partial, 'pnpm-lock.yaml'))) {
    step(`extracting ${ref} into ${partial}`);
    await extract(repoRoot, sha, partial);
  }
  neutralise(partial);
  step('pnpm install --frozen-lockfile --prefer-offline');
  await run('install', 'npx', [...PNPM, 'install', '--frozen-lockfile', '--prefer-offline'], {
    cwd: partial,
    timeoutMs: STEP_TIMEOUT_MS.install,
  });
  step(`building ${BASELINE_PACKAGES.join(', ')} and their dependencies`);
  const filters = BASELINE_PACKAGES.flatMap((pkg) => ['--filter', `@mcpkit/${pkg}...`]);
  await run('build', 'npx', [...PNPM, ...filters, 'run', 'build'], { cwd: partial, timeoutMs: STEP_TIMEOUT_MS.build });
  const missing = BASELINE_PACKAGES.filter((pkg) => !existsSync(entry(partial, pkg)));
  if (missing.length > 0) throw new Error(`baseline build: no dist/index.js for ${missing.join(', ')} in ${partial}`);
  renameSync(partial, dir);
  step(`ready in ${dir}`);
  return result(true);
}
