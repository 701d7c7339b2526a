/**
 * The CLI's deferred engine load. The engine (isomorphic-git and all that reads a repository) is imported on
 * the first tool call (tools/common.ts `loadEngine`); a start-up that only answers `initialize` and `tools/list`
 * never needs it. So that the first call does not pay for compiling it either, the import starts once the
 * first session's server exists (the runner builds it for the client's opening message) and that message has
 * been answered: a `setImmediate` after it, so the opening's answer goes out first. Nothing is read from any
 * repository ahead, nothing of the SDK is touched; `--no-warmup` turns it off. It happens once per process.
 */
import { errorMessage, type Logger } from '@mcpkit/protocol-core';
import { loadEngine } from './tools/common.js';

export interface EnginePreload {
  /** A session's server was built: start the import after the current turn (the first time only). */
  sessionOpened(): void;
}

export function createEnginePreload(logger: Logger, load: () => Promise<unknown> = loadEngine): EnginePreload {
  let started = false;
  return {
    sessionOpened() {
      if (started) return;
      started = true;
      setImmediate(() => {
        const t0 = performance.now();
        load().then(
          () => logger.debug(`warm-up: engine loaded in ${Math.round(performance.now() - t0)} ms`),
          (error: unknown) => logger.debug(`warm-up: engine load failed: ${errorMessage(error)}`),
        );
      }).unref();
    },
  };
}
