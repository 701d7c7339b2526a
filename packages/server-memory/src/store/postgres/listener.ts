/**
 * Change notifications across processes, with PostgreSQL's LISTEN/NOTIFY and no other broker.
 * After a write that changed a graph commits, its store sends `pg_notify(<graph's channel>, <notice>)`
 * (`notifier.ts`), so a notice follows every committed change. While at least one graph of the process is followed (a
 * client subscribed to its resource), the process keeps one dedicated connection (outside the pool) that
 * LISTENs on the channel of every followed graph, and hands each notice to the followers of the graph it
 * names; a graph no longer followed is UNLISTENed, and the connection closes when none is. When it breaks
 * (database restarted, network cut) it reconnects with a growing delay, listens again and reports one change
 * to every follower, since notices sent meanwhile were lost.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '@mcpkit/protocol-core';
import pg from 'pg';

/** The channel of a graph: a fixed-size identifier (graph names may be 200 characters of anything). */
export function graphChannel(graph: string): string {
  return `memory_graph_${createHash('sha256').update(graph).digest('hex').slice(0, 40)}`;
}

/** What a notice carries: the graph (two names could share a channel), who wrote, and that writer's change counter. */
export interface ChangeNotice {
  graph: string;
  origin: string;
  seq: number;
}

/** The `pg_notify` payload of a notice (well under PostgreSQL's 8000-byte limit). */
export const encodeNotice = (notice: ChangeNotice): string => JSON.stringify(notice);

function decodeNotice(payload: string | undefined): ChangeNotice | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Partial<ChangeNotice>;
    return typeof value.graph === 'string' && typeof value.origin === 'string' ? (value as ChangeNotice) : undefined;
  } catch {
    return undefined;
  }
}

export interface ChangeListenerOptions {
  /** How to open the listening connection (the pool's settings). */
  connection: pg.ClientConfig;
  logger: Logger;
  redact: (text: string) => string;
  /** First and longest wait before reconnecting; default 250 ms and 5 s. */
  retryMs?: { first: number; max: number };
}

export interface Following {
  /**
   * Resolves once the connection listens on the graph's channel, or has failed to (its reconnect then reports one
   * change): from then on no other store's change of the graph goes unheard.
   */
  listening(): Promise<void>;
  /** Stops hearing the graph (once; again is nothing). */
  stop(): void;
}

export interface ChangeListener {
  /** Calls `onChange` for each notice on `graph` from a writer other than `origin`, and once after each reconnect. */
  follow(graph: string, origin: string, onChange: () => void): Following;
  /** Stops every follower and closes the connection. */
  close(): Promise<void>;
}

interface Follower {
  graph: string;
  origin: string;
  onChange: () => void;
}

export function createChangeListener({
  connection,
  logger,
  redact,
  retryMs = { first: 250, max: 5000 },
}: ChangeListenerOptions): ChangeListener {
  /** The followers of each channel listened to (or to listen to once connected). */
  const channels = new Map<string, Set<Follower>>();
  /** On the connected client: each channel's LISTEN, settled once in effect or failed. */
  const listened = new Map<string, Promise<void>>();
  let closed = false;
  let client: pg.Client | undefined;
  let connected = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = retryMs.first;
  /** The connection broke (or never came up) since the last LISTEN: changes may have been missed. */
  let missed = false;
  /** Settles when the attempt under way listens or fails; undefined when no attempt is under way. */
  let attempt: { settled: Promise<void>; settle: () => void } | undefined;
  const settleAttempt = () => {
    attempt?.settle();
    attempt = undefined;
  };

  const everyone = (): Follower[] => [...channels.values()].flatMap((set) => [...set]);

  const lost = (c: pg.Client, error: Error) => {
    if (client !== c) return; // stopped on purpose, or already handled
    client = undefined;
    connected = false;
    listened.clear();
    settleAttempt();
    c.end().catch(() => {});
    if (!missed) logger.warn(`change notifications interrupted: ${redact(error.message)}; reconnecting`);
    missed = true;
    if (closed || channels.size === 0) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, retryMs.max);
  };

  /** LISTENs on `channel` on the connected client `c`; settles either way (a failure is the connection's). */
  const listen = (c: pg.Client, channel: string): Promise<void> => {
    // `channel` is made of [a-z0-9_] only (`graphChannel`): safe as an identifier.
    const done = c.query(`LISTEN ${channel}`).then(
      () => {},
      (error: Error) => lost(c, error),
    );
    listened.set(channel, done);
    return done;
  };

  const connect = () => {
    if (closed || channels.size === 0 || client || retry) return;
    const c = new pg.Client({ ...connection, keepAlive: true });
    client = c;
    let settle!: () => void;
    attempt = { settled: new Promise<void>((resolve) => (settle = resolve)), settle };
    c.on('error', (error) => lost(c, error));
    c.on('end', () => lost(c, new Error('the connection was closed')));
    c.on('notification', (message) => {
      const notice = decodeNotice(message.payload);
      if (!notice) return;
      for (const f of [...(channels.get(message.channel) ?? [])]) if (notice.graph === f.graph && notice.origin !== f.origin) f.onChange();
    });
    c.connect()
      .then(() => {
        if (client !== c) return;
        // Channels followed from now on are listened to by `follow` itself.
        connected = true;
        return Promise.all([...channels.keys()].map((channel) => listen(c, channel)));
      })
      .then(
        () => {
          if (client !== c) return;
          settleAttempt();
          delay = retryMs.first;
          if (!missed) return;
          missed = false;
          logger.info('change notifications resumed');
          for (const f of everyone()) f.onChange();
        },
        (error: Error) => lost(c, error),
      );
  };

  const stop = () => {
    clearTimeout(retry);
    retry = undefined;
    const c = client;
    client = undefined;
    connected = false;
    listened.clear();
    settleAttempt();
    missed = false;
    delay = retryMs.first;
    return c ? c.end().catch(() => {}) : Promise.resolve();
  };

  const unfollow = (channel: string, follower: Follower) => {
    const set = channels.get(channel);
    if (!set?.delete(follower) || set.size > 0) return;
    channels.delete(channel);
    listened.delete(channel);
    if (channels.size === 0) {
      void stop();
      return;
    }
    const c = client;
    if (c && connected) c.query(`UNLISTEN ${channel}`).catch((error: Error) => lost(c, error));
  };

  return {
    follow(graph, origin, onChange) {
      const follower: Follower = { graph, origin, onChange };
      const channel = graphChannel(graph);
      if (closed) return { listening: () => Promise.resolve(), stop: () => {} };
      let set = channels.get(channel);
      if (!set) {
        set = new Set();
        channels.set(channel, set);
        if (client && connected) listen(client, channel);
      }
      set.add(follower);
      connect();
      let stopped = false;
      return {
        listening: () => {
          if (stopped || !client) return Promise.resolve(); // waiting to reconnect: the reconnect reports the gap
          if (!connected) return attempt?.settled ?? Promise.resolve();
          return listened.get(channel) ?? Promise.resolve();
        },
        stop() {
          if (stopped) return;
          stopped = true;
          unfollow(channel, follower);
        },
      };
    },
    async close() {
      closed = true;
      channels.clear();
      await stop();
    },
  };
}
