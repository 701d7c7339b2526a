/**
 * What a lock file says about its owner, and what a user is told when a lock is not released in time.
 */
import { hostname } from 'node:os';

/** What a lock file says about its owner (every field optional: older or foreign lock files). */
export interface LockOwner {
  pid?: number;
  host?: string;
  /** When the lock was written (ms since the epoch). */
  since?: number;
  id?: string;
}

/** This machine's name, as lock files record it. */
export const HOST = hostname();

/** Reads a lock file's owner; throws when it is not JSON (half-written). */
export function parseLockOwner(text: string): LockOwner {
  const raw = JSON.parse(text) as unknown;
  if (typeof raw !== 'object' || raw === null) return {};
  const { pid, host, since, id } = raw as Record<string, unknown>;
  const sinceMs = typeof since === 'string' ? Date.parse(since) : Number.NaN;
  return {
    ...(Number.isSafeInteger(pid) && (pid as number) > 0 ? { pid: pid as number } : {}),
    ...(typeof host === 'string' ? { host } : {}),
    ...(Number.isFinite(sinceMs) ? { since: sinceMs } : {}),
    ...(typeof id === 'string' ? { id } : {}),
  };
}

/** `process 123 (holding it since …)`, for messages. */
export function describeOwner(owner: LockOwner): string {
  const who = owner.pid === undefined ? 'an unknown process' : `process ${owner.pid}`;
  const where = owner.host !== undefined && owner.host !== HOST ? ` on ${owner.host}` : '';
  const since = owner.since !== undefined ? ` since ${new Date(owner.since).toISOString()}` : '';
  return `${who}${where}${since}`;
}

export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
  constructor(
    readonly path: string,
    /** Who held it when we gave up (`process 123 since …`). */
    readonly holder: string,
    waitedMs: number,
    /** Whether that process is proven to be the one that wrote the lock (its identity matches the lock's `id`). */
    readonly provenOwner = false,
  ) {
    super(`${path} is held by ${holder}; waited ${Math.round(waitedMs / 100) / 10} s`);
  }
}

/**
 * What a user can do about a lock that was not released in time. Stopping the process the lock names
 * is suggested only when it is proven to be the lock's writer: a lock without an identity may name a
 * process that merely got a dead server's pid (init, pid 1, after a reboot or in a container).
 */
export function lockTimeoutText(error: LockTimeoutError, timeoutMs: number): string {
  const within = `within ${Number((timeoutMs / 1000).toFixed(1))} s; nothing was read or changed.`;
  if (error.provenOwner) {
    return `The memory file is locked by another mcp-server-memory (${error.holder}) that did not release it ${within} Try again later, or stop that process if it is stuck.`;
  }
  return (
    `The memory file is locked by ${error.holder}, which is not known to be a memory server, and the lock was not released ${within} ` +
    `Try again later; if no other memory server uses this file, the lock is stale: remove the stale lock file ${error.path}.`
  );
}
