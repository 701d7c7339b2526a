/** One deadline per request: connecting, every redirect hop and the body all run against it. */
import { HttpError, raiseHint, transportError } from './errors.js';
import { formatDuration } from './format.js';

/** One deadline for a request: aborts `controller` and rejects `expired` at `timeoutMs` or when `signal` aborts. */
export interface Deadline {
  /** The whole exchange's time limit; also undici's headers and body timeouts for each hop. */
  timeoutMs: number;
  controller: AbortController;
  /**
   * Rejects at the deadline or on abort. undici honours an abort only once it has a connection: a proxy
   * that accepts the connection and never answers the tunnel request would hold a request forever, so
   * every phase races this.
   */
  expired: Promise<never>;
  timedOut(): boolean;
  /** The deadline passed or the caller's signal aborted: nothing of this request is wanted any more. */
  ended(): boolean;
  /**
   * What a request that failed with `error` rejects with: the caller's `signal.reason` after an abort,
   * `HttpError('timeout')` after the deadline, an `HttpError` as it is, anything else as a transport error.
   */
  failure(error: unknown): unknown;
  /** Stops the timer and the abort listener (idempotent). */
  finish(): void;
}

export interface DeadlineOptions {
  timeoutMs: number;
  /** The caller's signal: aborting it ends the request at once. */
  signal?: AbortSignal | undefined;
  /** The flag that raises the limit, named in the timeout error. */
  flag?: string | undefined;
}

/** Starts a deadline; throws `signal.reason` at once when `signal` is already aborted. */
export function startDeadline({ timeoutMs, signal, flag }: DeadlineOptions): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  let done = false;
  let expire: (error: Error) => void = () => {};
  const expired = new Promise<never>((_resolve, reject) => {
    expire = reject;
  });
  expired.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    expire(new Error('deadline'));
  }, timeoutMs);
  const onAbort = () => {
    controller.abort();
    expire(new Error('aborted'));
  };
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  if (signal) {
    if (signal.aborted) {
      finish();
      throw signal.reason;
    }
    signal.addEventListener('abort', onAbort, { once: true });
  }
  const failure = (error: unknown): unknown => {
    if (signal?.aborted && !timedOut) return signal.reason;
    if (timedOut)
      return new HttpError('timeout', `no complete response within ${formatDuration(timeoutMs)}${raiseHint(flag, 'the limit')}`, {
        cause: error,
      });
    if (error instanceof HttpError) return error;
    return transportError(error);
  };
  return { timeoutMs, controller, expired, timedOut: () => timedOut, ended: () => timedOut || Boolean(signal?.aborted), failure, finish };
}
