/**
 * The loopback redirect of the authorization code flow (RFC 8252 §7.3): an HTTP listener on
 * `http://127.0.0.1:<port>/callback` for one authorization (or, with `rounds`, a few in a row at the
 * same redirect URI). A request to `/callback` with the right `state` hands its query over, and an
 * `error` redirect with the right `state` fails the login. A callback with another `state` (or none)
 * is answered 400, logged in one line and ignored: any local process can reach the port, and its
 * request must not end the login; the listener keeps waiting for the right one or the timeout. A
 * `state` already handed over is refused the same way (a reloaded page); anything else gets a 404.
 * It closes itself after the last round's callback, a failure or the timeout (each round has the
 * whole timeout).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatSeconds } from '../mcp/messages.js';

/** How long a login waits for the browser to come back. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const CALLBACK_PATH = '/callback';
/** Ignored callbacks logged one line each; after that they are ignored quietly. */
const MAX_IGNORED_LOGGED = 5;

export interface CallbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUrl: string;
  /**
   * The callback's query once the browser is back (or already was). Rejects on an `error` redirect
   * (with the right `state`), the timeout, or `close()` first; a wrong `state` does not end it.
   */
  wait(): Promise<URLSearchParams>;
  /** Stop listening (idempotent). */
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>mcp-agent</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/** An `error` code as the RFC spells them, or nothing: the value comes from whoever sent the redirect. */
function safeErrorCode(value: string | null): string {
  return value !== null && /^[a-z_]{1,64}$/.test(value) ? ` (${value})` : '';
}

async function listenOn(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export interface CallbackListenerOptions {
  /** The `state` the callback must carry, read when it arrives (the provider's last one). */
  expectedState: () => string | undefined;
  /** A port to try first (a registration made for it stays valid); taken, or absent: any free port. */
  preferredPort?: number;
  /** Default 5 min. */
  timeoutMs?: number;
  /** Callbacks to hand over before closing (a login that must authorize again). Default 1. */
  rounds?: number;
  /** Where an ignored callback is noted (one line each). Default: stderr. */
  log?: (line: string) => void;
}

/** Listen on 127.0.0.1 for `options.rounds` (default one) authorization callbacks. */
export async function startCallbackListener(options: CallbackListenerOptions): Promise<CallbackListener> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const rounds = options.rounds ?? 1;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let settle: { resolve: (params: URLSearchParams) => void; reject: (error: Error) => void } | undefined;
  /** What came back before `wait` was called (a fast browser), oldest first. */
  const early: { params?: URLSearchParams; error?: Error }[] = [];
  let done = false;
  let received = 0;
  /** The `state` of every callback handed over: each is good for one round. */
  const usedStates = new Set<string>();
  /** Callbacks ignored for a wrong `state` (only the first few are logged: anyone local can send them). */
  let ignored = 0;

  const finish = (outcome: { params?: URLSearchParams; error?: Error }) => {
    if (done) return;
    received += 1;
    done = outcome.error !== undefined || received >= rounds;
    if (settle) {
      if (outcome.error) settle.reject(outcome.error);
      else settle.resolve(outcome.params as URLSearchParams);
      settle = undefined;
    } else {
      early.push(outcome);
    }
    if (done) void close();
    else armTimer();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH || req.method !== 'GET' || done) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const params = url.searchParams;
    const reply = (status: number, title: string, text: string) =>
      res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' })
        .end(PAGE(title, text));
    const state = options.expectedState();
    if (state !== undefined && usedStates.has(state) && params.get('state') === state) {
      reply(400, 'Already used', 'This answer was already received. You can close this window.');
      return;
    }
    if (state === undefined || params.get('state') !== state) {
      // Not this login's answer (another local process, a stale tab): refused, and the login goes on.
      reply(400, 'Not this login', 'This answer does not belong to the login mcp-agent is waiting for (state mismatch).');
      ignored += 1;
      if (ignored <= MAX_IGNORED_LOGGED) log('ignored a callback whose state does not belong to this login; still waiting for the browser');
      if (ignored === MAX_IGNORED_LOGGED) log('further callbacks with a wrong state are ignored without a line each');
      return;
    }
    if (params.has('error')) {
      // error_description and error_uri are not shown: in a mix-up attack they are the attacker's words.
      reply(400, 'Login failed', 'The authorization server did not grant access. You can close this window.');
      finish({ error: new Error(`the authorization server refused the login${safeErrorCode(params.get('error'))}`) });
      return;
    }
    if (!params.get('code')) {
      reply(400, 'Login failed', 'The answer had no authorization code.');
      finish({ error: new Error('the browser came back without an authorization code') });
      return;
    }
    usedStates.add(state);
    reply(200, 'Logged in', 'mcp-agent received the authorization. You can close this window.');
    finish({ params });
  });

  let port: number;
  try {
    port = await listenOn(server, options.preferredPort ?? 0);
  } catch (error) {
    if (options.preferredPort === undefined || options.preferredPort === 0) throw error;
    port = await listenOn(server, 0);
  }
  let timer: NodeJS.Timeout | undefined;
  function armTimer(): void {
    clearTimeout(timer);
    timer = setTimeout(() => finish({ error: new Error(`no answer from the browser within ${formatSeconds(timeoutMs)}`) }), timeoutMs);
    timer.unref();
  }
  armTimer();

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    clearTimeout(timer);
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return closing;
  }

  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    wait() {
      return new Promise<URLSearchParams>((resolve, reject) => {
        const outcome = early.shift();
        if (outcome) {
          if (outcome.error) reject(outcome.error);
          else resolve(outcome.params as URLSearchParams);
          return;
        }
        if (done) {
          reject(new Error('the login was cancelled'));
          return;
        }
        settle = { resolve, reject };
      });
    },
    async close() {
      finish({ error: new Error('the login was cancelled') });
      await close();
    },
  };
}
