/**
 * The one map from the engine's errors to tool errors: a GitError (../engine/errors.ts) becomes the
 * ToolError (an `isError` answer) the tool returns. The engine's messages already are the reference's
 * texts (GitPython's `Cmd('git') failed …`, git's own words), so every code answers with its message;
 * a code that must read differently to the model says so here, and only here.
 */
import { ToolError } from '@mcpkit/protocol-core';
import { GitError, type GitErrorCode } from '../engine/errors.js';

const asIs = (error: GitError) => error.message;

/** The answer's text for each kind of GitError. */
const ANSWERS: Record<GitErrorCode, (error: GitError) => string> = {
  NO_ROOTS: asIs,
  OUTSIDE_ROOTS: asIs,
  NOT_A_REPOSITORY: asIs,
  INVALID_ARGUMENT: asIs,
  NOT_FOUND: asIs,
  GIT_COMMAND_FAILED: asIs,
  CONFLICT: asIs,
  NOTHING_TO_DO: asIs,
  LOCKED: asIs,
  DAMAGED: asIs,
  LIMIT_EXCEEDED: asIs,
  IDENTITY: asIs,
  UNSUPPORTED: asIs,
  REMOTE: asIs,
  CANCELLED: asIs,
  FAILED: asIs,
};

/** The ToolError for an engine error, or null when `error` is something else. */
export function gitToolError(error: unknown): ToolError | null {
  if (!(error instanceof GitError)) return null;
  return new ToolError(ANSWERS[error.code](error), { cause: error });
}
