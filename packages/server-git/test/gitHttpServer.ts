/**
 * A real smart-HTTP git server on 127.0.0.1 for the network tools' tests: `git http-backend` as CGI
 * behind node:http, serving the bare repositories under a root, fetch and push. It can require Basic
 * auth, slow its answers down (`throttle`) and tells which answers the client abandoned (`aborted`).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { gitEnv } from './helpers.js';

export interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

export interface Throttle {
  /** Bytes sent per tick. */
  bytes: number;
  /** Pause after each tick, in ms. */
  everyMs: number;
  /** Only requests whose `METHOD url` includes this are slowed down (default: all). */
  only?: string;
  /**
   * After this many bytes of an answer, send nothing more until the client closes the connection: an answer that
   * cannot finish before the test cancels it, however fast the machine (default: none, the answer completes).
   */
  stallAfter?: number;
}

export interface GitHttpServer {
  origin: string;
  port: number;
  seen: Seen[];
  /** `user:password` required with Basic auth, or null for none. */
  requireAuth: string | null;
  /** Answers are sent at most `bytes` per `everyMs` when set (a slow link); null: at full speed. */
  throttle: Throttle | null;
  /** Requests (`METHOD url`) whose connection the client closed before the answer was complete. */
  aborted: string[];
  close(): Promise<void>;
}

/** Serves the bare repositories under `root` over smart HTTP (`git http-backend`), fetch and push. */
export async function serveGit(root: string): Promise<GitHttpServer> {
  const seen: Seen[] = [];
  const aborted: string[] = [];
  const state = { requireAuth: null as string | null, throttle: null as Throttle | null };
  const server: Server = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    if (state.requireAuth !== null && req.headers.authorization !== `Basic ${Buffer.from(state.requireAuth).toString('base64')}`) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end('authentication required');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const child = spawn('git', ['http-backend'], {
      env: {
        ...gitEnv(),
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        REMOTE_USER: 'tester',
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.on('error', () => {});
    req.pipe(child.stdin);
    const throttle =
      state.throttle && (state.throttle.only === undefined || `${req.method} ${req.url}`.includes(state.throttle.only))
        ? state.throttle
        : null;
    let gone = false;
    let closed: () => void = () => {};
    const whenGone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    let sent = 0;
    res.on('close', () => {
      closed();
      if (res.writableFinished) return;
      gone = true;
      aborted.push(`${req.method} ${req.url}`);
      child.kill();
    });
    /** Writes `chunk`, at the throttle's pace when there is one; the answer's bytes stay in order. */
    let writing: Promise<void> = Promise.resolve();
    const send = (chunk: Buffer) => {
      if (!throttle) {
        res.write(chunk);
        return;
      }
      child.stdout.pause();
      writing = writing.then(async () => {
        for (let at = 0; at < chunk.length && !gone; at += throttle.bytes) {
          if (throttle.stallAfter !== undefined && sent >= throttle.stallAfter) await whenGone;
          if (gone) break;
          const piece = chunk.subarray(at, at + throttle.bytes);
          sent += piece.length;
          res.write(piece);
          // Kept on the wall clock: a slow link is what this fixture simulates. The transfer must last across the
          // progress reporter's own timers (protocol-core's 250 ms delay, 500 ms interval) for progress to be
          // heard and a cancellation to land mid-answer; no test asserts on how long it takes.
          await sleep(throttle.everyMs);
        }
        child.stdout.resume();
      });
    };
    let head = Buffer.alloc(0);
    let started = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (started) {
        send(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      let message = 'OK';
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') {
          status = Number(value.slice(0, 3));
          message = value.slice(4) || message;
        } else res.setHeader(name, value);
      }
      res.writeHead(status, message);
      send(head.subarray(end + 4));
    });
    child.on('close', () => {
      void writing.then(() => res.end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    aborted,
    get requireAuth() {
      return state.requireAuth;
    },
    set requireAuth(value) {
      state.requireAuth = value;
    },
    get throttle() {
      return state.throttle;
    },
    set throttle(value) {
      state.throttle = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
