/** The context every tool of a git server receives (../engine/context.ts), built from the server's options. */
import { homedir } from 'node:os';
import { silentLogger } from '@mcpkit/protocol-core';
import type { GitContext } from './engine/context.js';
import { createPatchCache } from './engine/diff/patchCache.js';
import { DEFAULT_OBJECT_LIMITS, type ObjectLimits } from './engine/git/objectLimits.js';
import { createRepoCache } from './engine/repoCache.js';
import type { AllowedRoots } from './engine/roots.js';

/** What of a server's options (../server.ts GitServerOptions) the context takes; the defaults are the server's. */
export type GitContextOptions = Partial<Pick<GitContext, 'remote' | 'env' | 'home' | 'logger' | 'workTreeHooks' | 'repoCache'>> & {
  objectLimits?: Partial<ObjectLimits> | undefined;
};

/** `roots` is where this context may work; the caches are the options' `repoCache` (else a new one) and a new patch cache. */
export function createGitContext(options: GitContextOptions, roots: AllowedRoots): GitContext {
  const repoCache = options.repoCache ?? createRepoCache();
  return {
    roots,
    repoCache,
    remote: options.remote,
    env: options.env ?? process.env,
    home: options.home ?? homedir(),
    logger: options.logger ?? silentLogger,
    patchCache: createPatchCache(repoCache.budget),
    workTreeHooks: options.workTreeHooks,
    objectLimits: { ...DEFAULT_OBJECT_LIMITS, ...options.objectLimits },
  };
}
