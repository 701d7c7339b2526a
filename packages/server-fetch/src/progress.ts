import { createProgressReporter, type ProgressOptions, type RequestContext } from '@mcpkit/protocol-core';
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

/**
 * `notifications/progress` for a request whose client sent a `progressToken` (`noProgress` without
 * one), throttled by protocol-core's reporter (nothing for a call over within 250 ms, then at most one
 * per 500 ms). Downloads report bytes (of the declared size when there is one); a conversion has
 * nothing to measure, so it reports a heartbeat with the time spent, which also keeps clients that
 * reset their request timeout on progress waiting. Stops by itself when the request is cancelled.
 */
export function createProgress(extra: RequestContext, options: ProgressOptions = {}): Progress {
  const reporter = createProgressReporter(extra, options);
  if (!reporter.active) return noProgress;
  return {
    downloading(received, total) {
      reporter.update(received, total, () =>
        total === undefined || total < received
          ? `Downloaded ${formatBytes(received)}`
          : `Downloaded ${formatBytes(received)} of ${formatBytes(total)}`,
      );
    },
    converting(what) {
      const since = performance.now();
      reporter.working(() => `Converting ${what} to text (${Math.round((performance.now() - since) / 1000)} s)`);
    },
    end: () => reporter.end(),
  };
}
