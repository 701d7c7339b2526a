/**
 * Change notifications across processes, with PostgreSQL's LISTEN/NOTIFY and no other broker.
 * Every write transaction that changed the graph sends `pg_notify(<graph's channel>, <notice>)`
 * before its COMMIT, so the notice is delivered only if the change commits. While at least one
 * `watch()` handle is held (a client subscribed to the graph resource), the store keeps one
 * dedicated connection (outside the pool) that LISTENs on the graph's channel; when it breaks
 * (database restarted, network cut) it reconnects with a growing delay, listens again and reports
 * one change, since notices sent meanwhile were lost.
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

export interface GraphListenerOptions {
  /** How to open the listening connection (the pool's settings). */
  connection: pg.ClientConfig;
  graph: string;
  /** This store's id: its own notices are skipped (it tells its listeners itself, at once). */
  origin: string;
  /** Called for each notice from another store, and once after each reconnect. */
  onChange: () => void;
  logger: Logger;
  redact: (text: string) => string;
  /** First and longest wait before reconnecting; default 250 ms and 5 s. */
  retryMs?: { first: number; max: number };
}

export interface GraphListener {
  /** Listens while at least one handle is held; the returned function releases the handle. */
  watch(): () => void;
  /**
   * Resolves once the connection under way listens, or has failed to (its reconnect then reports one
   * change): from then on no other store's change goes unheard. At once when nothing is watched or it already listens.
   */
  listening(): Promise<void>;
  /** Releases every handle and closes the connection. */
  close(): Promise<void>;
}

export function createGraphListener({
  connection,
  graph,
  origin,
  onChange,
  logger,
  redact,
  retryMs = { first: 250, max: 5000 },
}: GraphListenerOptions): GraphListener {
  const channel = graphChannel(graph);
  let handles = 0;
  let closed = false;
  let client: pg.Client | undefined;
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

  const connect = () => {
    if (closed || handles === 0 || client || retry) return;
    const c = new pg.Client({ ...connection, keepAlive: true });
    client = c;
    let settle!: () => void;
    attempt = { settled: new Promise<void>((resolve) => (settle = resolve)), settle };
    const lost = (error: Error) => {
      if (client !== c) return; // stopped on purpose, or already handled
      client = undefined;
      settleAttempt();
      c.end().catch(() => {});
      if (!missed) logger.warn(`change notifications interrupted: ${redact(error.message)}; reconnecting`);
      missed = true;
      if (closed || handles === 0) return;
      retry = setTimeout(() => {
        retry = undefined;
        connect();
      }, delay);
      retry.unref();
      delay = Math.min(delay * 2, retryMs.max);
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('the connection was closed')));
    c.on('notification', (message) => {
      if (message.channel !== channel) return;
      const notice = decodeNotice(message.payload);
      if (notice && notice.graph === graph && notice.origin !== origin) onChange();
    });
    c.connect()
      // `channel` is made of [a-z0-9_] only (`graphChannel`): safe as an identifier.
      .then(() => c.query(`LISTEN ${channel}`))
      .then(() => {
        if (client !== c) return;
        settleAttempt();
        delay = retryMs.first;
        if (!missed) return;
        missed = false;
        logger.info('change notifications resumed');
        onChange();
      }, lost);
  };

  const stop = () => {
    clearTimeout(retry);
    retry = undefined;
    const c = client;
    client = undefined;
    settleAttempt();
    missed = false;
    delay = retryMs.first;
    return c ? c.end().catch(() => {}) : Promise.resolve();
  };

  return {
    watch() {
      handles++;
      connect();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        handles--;
        if (handles === 0) void stop();
      };
    },
    listening: () => attempt?.settled ?? Promise.resolve(),
    async close() {
      closed = true;
      handles = 0;
      await stop();
    },
  };
}
