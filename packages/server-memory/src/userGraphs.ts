/**
 * One graph per user (`--graph-per-user`, with `--oauth-issuer`): the subject of the request's access token
 * (`authInfo.extra.subject`, set by protocol-core's auth guard) picks the graph every tool call and resource read
 * works on. The graph's key is a hash of the subject (`userGraphKey`), so no subject, however long or odd, can
 * reach outside its own file or graph name. A token without a user (client credentials: no `sub`, or `sub` equal
 * to the client id, RFC 9068 §2.2) is refused with a tool error, never mapped to a shared graph.
 *
 * Users' stores are opened on first use and kept while in use; beyond `maxOpen`, the least recently used idle
 * ones are closed (and reopened when their user comes back).
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '@mcpkit/protocol-core';
import { ToolError } from '@mcpkit/protocol-core';
import type { GraphStore } from './store/types.js';

/** The graph key of a subject: the first 32 hex digits (128 bits) of its SHA-256. */
export function userGraphKey(subject: string): string {
  return createHash('sha256').update(subject, 'utf8').digest('hex').slice(0, 32);
}

/** The user a request acts for, or a `ToolError` saying why there is none. */
export function requestSubject(extra: Pick<RequestContext, 'http'>): string {
  const auth = extra.http?.authInfo;
  const subject = auth?.extra?.subject;
  if (!auth) throw new ToolError('This server keeps one graph per user and the request carries no access token.');
  if (typeof subject !== 'string' || subject === '' || subject === auth.clientId)
    throw new ToolError(
      'This server keeps one graph per user, and this access token names no user (a client credentials token?); sign in as a user.',
    );
  return subject;
}

export interface UserGraphs {
  /** Runs `fn` with the graph of the request's user (opened if need be); throws a `ToolError` without a user. */
  use<T>(extra: Pick<RequestContext, 'http'>, fn: (store: GraphStore) => Promise<T>): Promise<T>;
  /** Holds the user's graph open until the returned release is called (a subscription's lifetime). */
  hold(extra: Pick<RequestContext, 'http'>): Promise<{ store: GraphStore; release(): void }>;
  close(): Promise<void>;
}

interface Entry {
  store: Promise<GraphStore>;
  users: number;
  lastUsed: number;
}

export function createUserGraphs({ open, maxOpen = 64 }: { open: (key: string) => Promise<GraphStore>; maxOpen?: number }): UserGraphs {
  const entries = new Map<string, Entry>();
  let tick = 0;

  function evict() {
    if (entries.size <= maxOpen) return;
    const idle = [...entries].filter(([, e]) => e.users === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [key, entry] of idle.slice(0, entries.size - maxOpen)) {
      entries.delete(key);
      void entry.store.then((s) => s.close()).catch(() => {});
    }
  }

  async function acquire(extra: Pick<RequestContext, 'http'>): Promise<{ store: GraphStore; release(): void }> {
    const key = userGraphKey(requestSubject(extra));
    let entry = entries.get(key);
    if (!entry) {
      entry = { store: open(key), users: 0, lastUsed: 0 };
      entries.set(key, entry);
      // A failed open is forgotten, so the next call tries again.
      entry.store.catch(() => entries.get(key) === entry && entries.delete(key));
    }
    const held = entry;
    held.users++;
    held.lastUsed = ++tick;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.users--;
      evict();
    };
    try {
      return { store: await held.store, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  return {
    async use(extra, fn) {
      const { store, release } = await acquire(extra);
      try {
        return await fn(store);
      } finally {
        release();
      }
    },
    hold: acquire,
    async close() {
      const stores = [...entries.values()].map((e) => e.store);
      entries.clear();
      await Promise.allSettled(stores.map(async (s) => (await s).close()));
    },
  };
}
