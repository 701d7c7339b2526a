import type { PatchCache } from './diff/patchCache.js';
import type { ObjectLimits } from './git/objectLimits.js';
import type { WorkFileHooks } from './git/workFile.js';
import type { EngineLogger as Logger } from './logger.js';
import type { RemoteAccess } from './remote/access.js';
import type { RepoCache } from './repoCache.js';
import type { AllowedRoots } from './roots.js';

/** What every tool of this server receives as `ctx`: its configuration and shared state, never module globals. */
export interface GitContext {
  /** Where this session may work (`--repository`, else the client's roots). */
  roots: AllowedRoots;
  /** isomorphic-git caches and derived data, per repository. */
  repoCache: RepoCache;
  /** Network access for fetch/pull/push; undefined unless `--allow-remote`. */
  remote: RemoteAccess | undefined;
  /** Environment used for commit identity and remote credentials (process.env in the CLI). */
  env: NodeJS.ProcessEnv;
  /** Where `~/.gitconfig` and `$XDG_CONFIG_HOME/git/config` are looked up (os.homedir() in the CLI). */
  home: string;
  logger: Logger;
  /** Patches kept briefly for their further pages (diffs, git_show). */
  patchCache: PatchCache;
  /** A test seam for the work tree's opens (workFile.ts); undefined outside tests. */
  workTreeHooks?: WorkFileHooks | undefined;
  /** What reading the repositories' objects may cost (--max-object-size, --max-delta-depth, --max-inflate-bytes). */
  objectLimits: ObjectLimits;
}
