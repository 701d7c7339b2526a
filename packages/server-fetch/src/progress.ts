import type { RequestExtra } from '@mcpkit/protocol-core';
import { formatBytes } from './format.js';

/** What a fetch reports while it runs; `noProgress` when nobody asked. */
export interface Progress {
  /** Body bytes received so far (decoded), and the declared size when it is known. */
  downloading(received: number, total: number | undefined): void;
  /** The body is being converted (`what`, e.g. `text/html (250 KiB)`), until `end`. */
  converting(what: string): void;
  /** The request is over: nothing more is sent. */
  end(): void;
}

export const noProgress: Progress = { downloading() {}, converting() {}, end() {} };

export interface ProgressOptions {
  /** A call that is over within this long reports nothing. Default 250 ms. */
  delayMs?: number;
  /** At most one notification per interval; while converting, one per interval. Default 500 ms. */
  intervalMs?: number;
}

type State = { phase: 'downloading'; received: number; total: number | undefined } | { phase: 'converting'; what: string; since: number };

/**
 * `notifications/progress` for a request whose client sent a `progressToken` (`noProgress` without
 * one). Downloads report bytes (of the declared size when there is one); a conversion has nothing to
 * measure, so it reports a heartbeat with the time spent, which also keeps clients that reset their
 * request timeout on progress waiting. The progress value increases with every notification.
 */
export function createProgress(extra: RequestExtra, { delayMs = 250, intervalMs = 500 }: ProgressOptions = {}): Progress {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return noProgress;
  const token: string | number = progressToken;
  const started = performance.now();
  let state: State | undefined;
  let sent = 0;
  let sentAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  function schedule(): void {
    if (timer || ended) return;
    const at = Math.max(started + delayMs, sentAt + intervalMs);
    timer = setTimeout(flush, Math.max(0, at - performance.now()));
  }

  function flush(): void {
    timer = undefined;
    if (ended || !state) return;
    let progress: number;
    let total: number | undefined;
    let message: string;
    if (state.phase === 'downloading') {
      progress = state.received;
      total = state.total;
      message =
        total === undefined ? `Downloaded ${formatBytes(progress)}` : `Downloaded ${formatBytes(progress)} of ${formatBytes(total)}`;
    } else {
      progress = sent + 1;
      message = `Converting ${state.what} to text (${Math.round((performance.now() - state.since) / 1000)} s)`;
    }
    if (progress <= sent) return;
    sent = progress;
    sentAt = performance.now();
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), message },
      })
      .catch(() => {});
    if (state.phase === 'converting') schedule();
  }

  return {
    downloading(received, total) {
      state = { phase: 'downloading', received, total: total !== undefined && total >= received ? total : undefined };
      schedule();
    },
    converting(what) {
      state = { phase: 'converting', what, since: performance.now() };
      schedule();
    },
    end() {
      ended = true;
      clearTimeout(timer);
    },
  };
}
