/**
 * Progress and cancellation for one network call (git_fetch, git_pull, git_push): isomorphic-git's
 * HTTP client bound to the MCP request's signal, so that a cancelled call (`notifications/cancelled`)
 * aborts the request in flight and every later one, and `notifications/progress` (when the client sent
 * a `progressToken`) from isomorphic-git's progress events and the bytes the remote sends.
 */

import type { GitHttpRequest, GitHttpResponse, GitProgressEvent, HttpClient } from 'isomorphic-git';
import { GitError } from '../errors.js';
import type { EngineLogger as Logger } from '../logger.js';

/** Where a network call reports its progress: protocol-core's ProgressReporter fits it (the tool makes one from the request). */
interface ProgressSink {
  readonly active: boolean;
  update(progress: number, total?: number, message?: string | (() => string)): void;
  working(message: () => string): void;
  end(): void;
}

/** What a caller gives a network call: a signal that cancels it, and where its progress goes (made when the call starts). */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  progress?: (() => ProgressSink) | undefined;
  /** A size for progress messages (`1.5 MiB`). */
  formatBytes?: ((bytes: number) => string) | undefined;
}

export interface RemoteCall {
  /** The access's HTTP client; its requests abort with the call's signal and count the bytes received. */
  http: HttpClient;
  /** For isomorphic-git's `onProgress`. Never throws (isomorphic-git calls it without awaiting it, too). */
  onProgress: (event: GitProgressEvent) => void;
  /** Whether the client cancelled the call. */
  readonly cancelled: boolean;
  /** The call is over: no more progress. */
  end(): void;
}

/**
 * The GitError of a cancelled call, logged (info) once the call has stopped and `state` holds. The
 * SDK sends no result for a cancelled request: only the log and direct callers see it.
 */
export function cancelledError(logger: Logger, action: string, remote: { name: string; display: string }, state: string): GitError {
  const message = `${action} '${remote.name}' (${remote.display}) was cancelled by the client; ${state}`;
  logger.info(message);
  return new GitError('CANCELLED', message);
}

/**
 * What isomorphic-git gets when a request fails: always an Error (a cancelled request rejects with the
 * signal's reason, which the SDK makes a string; isomorphic-git sets properties on what it catches).
 */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason), { cause: reason });
}

/** `body` as it is read, with `onChunk` told the size of each chunk; failures are Errors. */
function counted(body: AsyncIterableIterator<Uint8Array>, onChunk: (bytes: number) => void): AsyncIterableIterator<Uint8Array> {
  return {
    async next() {
      let step: IteratorResult<Uint8Array>;
      try {
        step = await body.next();
      } catch (error) {
        throw asError(error);
      }
      if (!step.done && step.value) onChunk(step.value.byteLength);
      return step;
    },
    async return(value?: unknown) {
      return body.return ? body.return(value) : { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The size of a request body given as buffers (isomorphic-git's usual form), or undefined. */
function bodySize(body: GitHttpRequest['body']): number | undefined {
  const value = body as unknown;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return value.reduce((sum: number, part: Uint8Array) => sum + part.byteLength, 0);
  return undefined;
}

/**
 * Starts the progress and cancellation of one network call. Progress: one number that only grows (the
 * sum of every phase's count: objects counted and compressed by the remote, bytes received, objects
 * indexed and deltas resolved here) with no total (the phases are not known in advance), and a message
 * for the latest phase (`Counting objects: 120/300`, `Receiving: 1.5 MiB`); while a POST waits for the
 * remote's answer (a fetch while the remote prepares the pack, a push while the pack is sent), a
 * heartbeat (`Sending 2.0 MiB, waiting for the remote (3 s)`). Throttled by protocol-core:
 * nothing for a call that ends within 250 ms, then at most one notification per 500 ms.
 */
export function startRemoteCall(http: HttpClient, options: CallOptions | undefined): RemoteCall {
  const signal = options?.signal;
  const reporter = options?.progress?.();
  const formatBytes = options?.formatBytes ?? ((n: number) => `${n} bytes`);
  /** Each phase's latest count; the progress value is their sum. */
  const counts = new Map<string, number>();
  let received = 0;

  function report(phase: string, count: number, message: () => string): void {
    if (!reporter?.active) return;
    counts.set(phase, Math.max(count, counts.get(phase) ?? 0));
    let sum = 0;
    for (const value of counts.values()) sum += value;
    reporter.update(sum, undefined, message);
  }

  const bound: HttpClient = {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      if (signal?.aborted) throw asError(signal.reason);
      const own = req.signal as AbortSignal | undefined;
      const combined = own && signal ? AbortSignal.any([own, signal]) : (own ?? signal);
      if (reporter?.active && (req.method ?? 'GET').toUpperCase() === 'POST') {
        const size = bodySize(req.body);
        const since = performance.now();
        const waited = () => `${Math.round((performance.now() - since) / 1000)} s`;
        // A fetch sends a few wants and haves; a push sends the pack, worth naming.
        reporter.working(() =>
          size !== undefined && size >= 64 * 1024
            ? `Sending ${formatBytes(size)}, waiting for the remote (${waited()})`
            : `Waiting for the remote (${waited()})`,
        );
      }
      let res: GitHttpResponse;
      try {
        res = await http.request({ ...req, ...(combined ? { signal: combined } : {}) });
      } catch (error) {
        throw asError(error);
      }
      if (!res.body) return res;
      if (!reporter?.active) return { ...res, body: counted(res.body, () => {}) };
      // The answer has come: the heartbeat stops (measured progress follows).
      report('received', received, () => `Receiving: ${formatBytes(received)}`);
      return {
        ...res,
        body: counted(res.body, (bytes) => {
          received += bytes;
          const now = received;
          report('received', now, () => `Receiving: ${formatBytes(now)}`);
        }),
      };
    },
  };

  return {
    http: bound,
    onProgress({ phase, loaded, total }) {
      try {
        report(phase, loaded, () => (total ? `${phase}: ${loaded}/${total}` : `${phase}: ${loaded}`));
      } catch {
        // Progress is best effort; a failure here must not become an unhandled rejection in isomorphic-git.
      }
    },
    get cancelled() {
      return signal?.aborted ?? false;
    },
    end: () => reporter?.end(),
  };
}
