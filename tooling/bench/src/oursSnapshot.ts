/**
 * A snapshot of this checkout's built servers for one bench run. `packages/<pkg>/dist` is rebuilt by
 * whoever runs `tsup` there; a rebuild in the middle of a run replaces the hashed chunk files a live
 * server loads lazily (the HTTP runner, say), and that server dies. So a suite that runs for minutes
 * copies `dist/` (and `package.json`, for `"type": "module"`) into `tooling/bench/.ours/<run>/`
 * (git-ignored) at its start, links the package's `node_modules` for the few modules the bundle
 * leaves external, and runs the copy. `dispose` removes it.
 */
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface OursSnapshot extends Disposable {
  dir: string;
  /** The copied `dist/index.js` of `pkg` (a directory name under packages/). */
  bin(pkg: string): string;
}

/** Copies the built `packages/<pkg>` of `repoRoot` for each of `pkgs`; throws if one is not built. */
export function snapshotOurs(repoRoot: string, benchDir: string, pkgs: readonly string[]): OursSnapshot {
  const dir = join(benchDir, '.ours', `${Date.now()}-${process.pid}`);
  const copied = new Set<string>();
  try {
    for (const pkg of pkgs) {
      const from = join(repoRoot, 'packages', pkg);
      if (!existsSync(join(from, 'dist', 'index.js'))) {
        throw new Error(`${join(from, 'dist', 'index.js')} is missing: build it first (cd packages/${pkg} && npx tsup)`);
      }
      const to = join(dir, 'packages', pkg);
      mkdirSync(to, { recursive: true });
      cpSync(join(from, 'dist'), join(to, 'dist'), { recursive: true });
      cpSync(join(from, 'package.json'), join(to, 'package.json'));
      if (existsSync(join(from, 'node_modules'))) symlinkSync(join(from, 'node_modules'), join(to, 'node_modules'), 'dir');
      copied.add(pkg);
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  return {
    dir,
    bin(pkg) {
      if (!copied.has(pkg)) throw new Error(`${pkg} is not in this snapshot (have ${[...copied].join(', ')})`);
      return join(dir, 'packages', pkg, 'dist', 'index.js');
    },
    [Symbol.dispose]: dispose,
  };
}
