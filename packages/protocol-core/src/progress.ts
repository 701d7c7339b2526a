import type { RequestContext } from './requestContext.js';

/**
 * `notifications/progress` for one request, throttled. The handler reports as often as it likes; what
 * reaches the client is at most one notification per interval, none at all for a call that is over
 * within the initial delay, and a `progress` value that increases with every notification (MCP
 * requires it).
 */
export interface ProgressReporter {
  /** Whether the client asked for progress (the request has a `progressToken`); without, nothing is sent. */
  readonly active: boolean;
  /**
   * Measured work: `progress` (bytes, objects …) of `total` when it is known. Only the latest value is
   * sent when the throttle allows, and only if it is above the last one sent. `message` may be a
   * function, called only when a notification is sent.
   */
  update(progress: number, total?: number, message?: string | (() => string)): void;
  /**
   * Work that cannot be measured (a conversion, waiting for a remote): until the next `update`,
   * `working` or `end`, one notification per interval (a heartbeat, which also keeps clients that
   * reset their timeout on progress waiting), its progress one above the last one sent, its message
   * `message()` at that moment.
   */
  working(message: () => string): void;
  /** The request is over: nothing more is sent. Idempotent; also happens when the request is cancelled. */
  end(): void;
}

export interface ProgressOptions {
  /** A call that is over within this long reports nothing. Default 250 ms. */
  delayMs?: number;
  /** At most one notification per interval. Default 500 ms. */
  intervalMs?: number;
}

/** A reporter that sends nothing (no `progressToken`). */
export const noProgressReporter: ProgressReporter = { active: false, update() {}, working() {}, end() {} };

type State =
  | { kind: 'measured'; progress: number; total: number | undefined; message: string | (() => string) | undefined }
  | { kind: 'working'; message: () => string };

/**
 * A throttled progress reporter for the request `extra` belongs to (`noProgressReporter` when the
 * client sent no `progressToken`). It stops by itself when the request's signal aborts (the client
 * cancelled); call `end()` when the handler is done, in a `finally`.
 */
export function createProgressReporter(
  extra: { mcpReq: Pick<RequestContext['mcpReq'], '_meta' | 'notify'> & { signal?: AbortSignal } },
  { delayMs = 250, intervalMs = 500 }: ProgressOptions = {},
): ProgressReporter {
  const progressToken = extra.mcpReq._meta?.progressToken;
  if (progressToken === undefined || extra.mcpReq.signal?.aborted) return noProgressReporter;
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
    // A handler that forgets `end()` must not keep the process alive.
    timer.unref();
  }

  function flush(): void {
    timer = undefined;
    if (ended || !state) return;
    let progress: number;
    let total: number | undefined;
    let message: string | undefined;
    if (state.kind === 'measured') {
      if (state.progress <= sent) return;
      progress = state.progress;
      total = state.total;
      message = typeof state.message === 'function' ? state.message() : state.message;
    } else {
      progress = sent + 1;
      message = state.message();
    }
    sent = progress;
    sentAt = performance.now();
    extra.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message !== undefined ? { message } : {}),
        },
      })
      .catch(() => {});
    if (state.kind === 'working') schedule();
  }

  function end(): void {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    timer = undefined;
    extra.mcpReq.signal?.removeEventListener('abort', end);
  }
  extra.mcpReq.signal?.addEventListener('abort', end, { once: true });

  return {
    active: true,
    update(progress, total, message) {
      // A total below the progress is wrong (a lying Content-Length): better none.
      state = { kind: 'measured', progress, total: total !== undefined && total >= progress ? total : undefined, message };
      schedule();
    },
    working(message) {
      state = { kind: 'working', message };
      schedule();
    },
    end,
  };
}
