/**
 * "This server needs a login": the one line the agent says when an HTTP server wants OAuth and
 * there is no usable token, and how to recognise the SDK's and our own ways of finding that out.
 */
import { InsufficientScopeError, UnauthorizedError } from '@modelcontextprotocol/client';

/** Thrown by a provider that may not start a login by itself (a plain connect) when one is needed. */
export class LoginRequiredError extends Error {
  override readonly name = 'LoginRequiredError';
  constructor(readonly serverName: string) {
    super(loginRequiredMessage(serverName));
  }
}

/** `server "<name>" needs a login: run mcp-agent login <name>` (the name quoted for a shell when it must be). */
export function loginRequiredMessage(serverName: string): string {
  const arg = /^[A-Za-z0-9_.@%+=:,/-]+$/.test(serverName) ? serverName : `'${serverName.replace(/'/g, `'\\''`)}'`;
  return `server "${serverName}" needs a login: run mcp-agent login ${arg}`;
}

/** `error` or one of its causes, when `match` says so. */
function findCause<T>(error: unknown, match: (value: unknown) => value is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when `error` (or a cause) says the server wants a login we do not have. */
export function isLoginRequired(error: unknown): boolean {
  return (
    findCause(error, (v): v is LoginRequiredError => v instanceof LoginRequiredError) !== undefined ||
    findCause(error, (v): v is UnauthorizedError => UnauthorizedError.isInstance(v)) !== undefined
  );
}

/** The `insufficient_scope` challenge in `error` (or a cause), if that is what it is. */
export function insufficientScope(error: unknown): InsufficientScopeError | undefined {
  return findCause(error, (v): v is InsufficientScopeError => InsufficientScopeError.isInstance(v));
}
