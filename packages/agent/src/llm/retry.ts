/**
 * Retries for a streamed request: an attempt that fails with a `TransientFailure` before it has
 * produced anything is tried again, after an exponential backoff or the server's `Retry-After`
 * (capped). Once an item has been yielded nothing is retried: the consumer has already acted on it.
 */
import { setTimeout as timerSleep } from 'node:timers/promises';
import { McpError } from '../errors.js';
import { TransientFailure } from './failures.js';

/** How often and how long to retry, and what a thrown error means. */
export interface RetryOptions {
  /** Attempts after the first. */
  maxRetries: number;
  /** The first backoff; each next one doubles it. */
  baseDelayMs: number;
  /** No wait is longer than this, whatever the server asks. Default 20 s. */
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Waits `ms` between attempts, rejecting when `signal` aborts (tests: one they drive). Default: a real timer. */
  sleep?: RetrySleep;
  /** Turns a thrown error into what it means (a `TransientFailure`, an `McpError`, or the error itself to rethrow). */
  classify: (error: unknown) => unknown;
}

/** Resolves after `ms`; rejects when `signal` is aborted first. */
export type RetrySleep = (ms: number, signal?: AbortSignal) => Promise<void>;

const DEFAULT_MAX_DELAY_MS = 20_000;

const realSleep: RetrySleep = (ms, signal) => timerSleep(ms, undefined, { signal });

function cancelled(signal: AbortSignal): McpError {
  return new McpError('CANCELLED', 'the model request was cancelled', { cause: signal.reason });
}

/** The items of `attempt()`, retried as described above. An abort of `signal` ends it with `CANCELLED`. */
export async function* withRetries<T>(attempt: () => AsyncIterable<T>, options: RetryOptions): AsyncGenerator<T> {
  const { signal } = options;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const sleep = options.sleep ?? realSleep;
  for (let attempts = 1; ; attempts++) {
    if (signal?.aborted) throw cancelled(signal);
    let yielded = false;
    try {
      for await (const item of attempt()) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal);
      const failure = options.classify(error);
      if (!(failure instanceof TransientFailure)) throw failure;
      if (yielded || attempts > options.maxRetries) throw failure.final(attempts);
      const delay = Math.min(failure.retryAfterMs ?? options.baseDelayMs * 2 ** (attempts - 1), maxDelayMs);
      try {
        await sleep(delay, signal);
      } catch (sleepError) {
        if (signal?.aborted) throw cancelled(signal);
        throw sleepError;
      }
    }
  }
}
