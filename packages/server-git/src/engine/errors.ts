/**
 * The engine's one error family. Every expected failure of a git operation is a GitError with a code
 * saying what kind it is and a message saying, in git's (or GitPython's) words where the reference
 * answers that way, what went wrong; the tools turn it into an answer (../tools/gitErrors.ts). The
 * engine imports nothing of the MCP protocol: it is a library that returns data and throws these.
 */

/** What kind of failure a GitError is. */
export type GitErrorCode =
  /** No repository is allowed (no --repository, no client roots), or the roots could not be listed. */
  | 'NO_ROOTS'
  /** A repo_path or file argument that confinement refuses: outside the roots, inside .git, beyond a symlink. */
  | 'OUTSIDE_ROOTS'
  /** repo_path is no (usable) git work tree: missing, not a repository, bare, a linked worktree, not the top. */
  | 'NOT_A_REPOSITORY'
  /** An argument this server refuses (empty, malformed, a bad cursor or date, an invalid ref name). */
  | 'INVALID_ARGUMENT'
  /** A revision, ref or path that does not resolve. */
  | 'NOT_FOUND'
  /** The reference's `Cmd('git') failed due to: …` text (what GitPython reports for a failing git command). */
  | 'GIT_COMMAND_FAILED'
  /** The repository's state refuses the operation (local changes in the way, unmerged files, a ref that exists). */
  | 'CONFLICT'
  /** Nothing to do (no local changes to stash, no stash entry). */
  | 'NOTHING_TO_DO'
  /** A lock file is held by another process (`.git/index.lock`, a ref's lock). */
  | 'LOCKED'
  /** Damaged repository data (object store, index). */
  | 'DAMAGED'
  /** An object or a call over a configured limit (--max-object-size and the like). */
  | 'LIMIT_EXCEEDED'
  /** No author/committer identity is configured, or it is malformed. */
  | 'IDENTITY'
  /** Something git can do and this server does not (submodules, stashes with untracked files …). */
  | 'UNSUPPORTED'
  /** Remote access is off, or a remote is refused or fails (its text holds no secret). */
  | 'REMOTE'
  /** The caller cancelled the operation (its AbortSignal). */
  | 'CANCELLED'
  /** An operation that failed for another reason (the file system refused to create a folder, …). */
  | 'FAILED';

export class GitError extends Error {
  override readonly name: string = 'GitError';
  constructor(
    readonly code: GitErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function isGitError(error: unknown): error is GitError {
  return error instanceof GitError;
}
