/**
 * `/readyz`, the readiness probe of the HTTP runner: 503 while draining, when the app cannot serve (its `ready`, e.g.
 * memory's database unreachable), when the OAuth issuer's metadata or keys cannot be had; 200 otherwise. A check is
 * bounded (`timeoutMs`) and its answer reused for `cacheMs`, so a probe every second costs at most one backend call
 * a second, and a probe storm none more. `/healthz` (liveness) calls none of this.
 */
import type { AuthGuard } from '../../auth/guard.js';
import { errorMessage } from '../../errors.js';
import type { Drain } from '../drain.js';
import type { ServerApp } from '../types.js';

interface ReadyAnswer {
  status: 'ok' | 'draining' | 'unavailable';
  reason?: string;
}

export interface ReadinessOptions {
  app: ServerApp;
  drain: Drain;
  auth?: Pick<AuthGuard, 'available'>;
  /** How long an answer is reused (ms). Default 1 s. */
  cacheMs?: number;
  /** How long a check may take before it counts as failed (ms). Default 2 s. */
  timeoutMs?: number;
  now?: () => number;
}

export interface Readiness {
  check(): Promise<ReadyAnswer>;
}

/** `work`, or a rejection once `ms` have passed. */
function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms}ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function createReadiness({ app, drain, auth, cacheMs = 1000, timeoutMs = 2000, now = Date.now }: ReadinessOptions): Readiness {
  let cached: { at: number; answer: Promise<ReadyAnswer> } | undefined;

  async function probe(): Promise<ReadyAnswer> {
    if (auth) {
      try {
        await bounded(auth.available(), timeoutMs, 'the authorization server');
      } catch (error) {
        return { status: 'unavailable', reason: `the OAuth issuer's metadata or keys cannot be had: ${errorMessage(error)}` };
      }
    }
    if (app.ready) {
      try {
        const ready = await bounded(app.ready(), timeoutMs, 'the server');
        if (!ready.ok) return { status: 'unavailable', ...(ready.reason ? { reason: ready.reason } : {}) };
      } catch (error) {
        return { status: 'unavailable', reason: errorMessage(error) };
      }
    }
    return { status: 'ok' };
  }

  return {
    async check() {
      if (drain.draining) return { status: 'draining', reason: 'the server is shutting down' };
      const at = now();
      if (!cached || at - cached.at >= cacheMs) cached = { at, answer: probe() };
      const answer = await cached.answer;
      // A drain that began while the backends were asked wins.
      return drain.draining ? { status: 'draining', reason: 'the server is shutting down' } : answer;
    },
  };
}
