/**
 * The engine: git on isomorphic-git, the only part of this server that imports isomorphic-git or reads
 * and writes the repository's files. A library: `openRepository` (./repository.ts) confines a path and
 * returns the repository's operations, which return plain data and throw GitError (./errors.ts); it
 * imports nothing of MCP. The tools (../tools) load this module once, on the first call of any of them
 * (`loadEngine`), so a start-up that only lists tools never compiles it (the server imports only
 * ./roots.ts, ./repoCache.ts, ./diff/patchCache.ts up front).
 */
export { GitError, type GitErrorCode, isGitError } from './errors.js';
export { initRepository, openRepository, type Repository } from './repository.js';
