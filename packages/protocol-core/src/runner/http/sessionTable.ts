import type { Logger } from '../../logger.js';

/** What the table knows about a session's use; the runner's own data (server, transport) is `value`. */
export interface Session<T> {
  readonly id: string;
  readonly value: T;
  /** When the last request or stream of this session began or ended (ms since the epoch). */
  lastSeen: number;
  /** Requests being answered and streams open now; a session with any is never closed by the table. */
  inFlight: number;
  /** Whether the client sent anything besides initialize and `notifications/initialized`. */
  used: boolean;
  /**
   * Whether the client closed its GET stream itself (the server did not end it) and sent nothing
   * since: what an SDK client's `close()` does when it does not send DELETE.
   */
  left: boolean;
}

export interface SessionTableOptions<T> {
  /** Live sessions at most, counting the ones being initialized. */
  maxSessions: number;
  /** A used session with nothing in flight for this long is closed by `expire` (ms). */
  idleMs: number;
  /** The same for a session that was never used (ms). */
  unusedIdleMs: number;
  /**
   * When the table is full, a session with nothing in flight idle at least this long (ms), or whose
   * client left, is closed to make room for a new one. Sessions active more recently are never reclaimed.
   */
  reclaimIdleMs: number;
  /** Releases a session's resources; called once per session, after it left the table. */
  close: (session: Session<T>) => Promise<unknown>;
  logger: Logger;
  now?: () => number;
}

/** How the caller ends a tracked request: when its response closes (`ServerResponse`'s `close`). */
interface TrackedResponse {
  once(event: 'close', listener: () => void): unknown;
  readonly writableEnded: boolean;
}

export interface SessionTable<T> {
  readonly size: number;
  get(id: string): Session<T> | undefined;
  ids(): string[];
  /**
   * Takes a slot for a session about to be created: a free one, or one reclaimed from an idle
   * session (the client-left ones first, then the longest idle). `false` when every slot is held by
   * an active session. A taken slot counts until `unreserve`.
   */
  reserve(): boolean;
  /** Gives back a slot taken by `reserve`, once its session is in the table or was not created. */
  unreserve(): void;
  add(id: string, value: T, init?: { inFlight?: number; used?: boolean }): Session<T>;
  /** A request (or stream, `stream: true`) of this session began; it ends when `res` closes. */
  track(session: Session<T>, res: TrackedResponse, options?: { stream?: boolean }): void;
  /** Marks activity without a tracked response. */
  touch(session: Session<T>): void;
  /** Removes the session and releases it; nothing when it is not in the table. */
  close(id: string): Promise<void>;
  /** Closes sessions idle past their limit; returns how many. */
  expire(): number;
}

/**
 * The runner's session table: at most `maxSessions` live sessions, idle expiry, and reclaiming of
 * idle sessions when full. State lives in the returned object; nothing is shared between tables.
 */
export function createSessionTable<T>(options: SessionTableOptions<T>): SessionTable<T> {
  const { maxSessions, idleMs, unusedIdleMs, reclaimIdleMs, logger } = options;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session<T>>();
  let pending = 0;

  const remove = (session: Session<T>): Promise<unknown> => {
    sessions.delete(session.id);
    return options.close(session);
  };

  /** The session to reclaim: nothing in flight, and its client left or it has been idle past the floor. */
  const victim = (): Session<T> | undefined => {
    const at = now();
    let best: Session<T> | undefined;
    for (const s of sessions.values()) {
      if (s.inFlight > 0 || !(s.left || at - s.lastSeen >= reclaimIdleMs)) continue;
      if (!best || (s.left && !best.left) || (s.left === best.left && s.lastSeen < best.lastSeen)) best = s;
    }
    return best;
  };

  return {
    get size() {
      return sessions.size;
    },
    get: (id) => sessions.get(id),
    ids: () => [...sessions.keys()],
    reserve() {
      if (sessions.size + pending >= maxSessions) {
        const old = victim();
        if (!old) {
          logger.warn(`refused a new session: ${maxSessions} sessions are live and none is idle`);
          return false;
        }
        const idle = Math.round((now() - old.lastSeen) / 1000);
        const why = old.left ? `its client left ${idle}s ago without DELETE` : `idle ${idle}s`;
        const line = `session ${old.id} reclaimed for a new session (${why}; ${maxSessions} sessions are live)`;
        if (old.left) logger.debug(line);
        else logger.info(line);
        void remove(old);
      }
      pending++;
      return true;
    },
    unreserve() {
      pending = Math.max(0, pending - 1);
    },
    add(id, value, init = {}) {
      const session: Session<T> = { id, value, lastSeen: now(), inFlight: init.inFlight ?? 0, used: init.used ?? false, left: false };
      sessions.set(id, session);
      return session;
    },
    track(session, res, { stream = false } = {}) {
      session.lastSeen = now();
      session.inFlight++;
      session.left = false;
      res.once('close', () => {
        session.inFlight--;
        session.lastSeen = now();
        // The server ends a stream it closes; one closed before that was dropped by the client.
        if (stream && !res.writableEnded) session.left = true;
      });
    },
    touch(session) {
      session.lastSeen = now();
      session.left = false;
    },
    async close(id) {
      const session = sessions.get(id);
      if (session) await remove(session);
    },
    expire() {
      const at = now();
      let closed = 0;
      for (const session of [...sessions.values()]) {
        const limit = session.used ? idleMs : unusedIdleMs;
        if (session.inFlight === 0 && at - session.lastSeen > limit) {
          const why = session.used ? 'idle' : 'without a request after initialize';
          logger.info(`session ${session.id} expired after ${Math.round(limit / 1000)}s ${why}`);
          void remove(session);
          closed++;
        }
      }
      return closed;
    },
  };
}
