/**
 * The CLI's warm-up. The engine (isomorphic-git and all that reads a repository) is imported on the first
 * tool call (tools/common.ts `loadEngine`); a start-up that only answers `initialize` and `tools/list` never
 * needs it. So that the first call pays neither for compiling it nor for reading the repository cold, the
 * import starts once the first session's server exists (the runner builds it for the client's opening
 * message) and that message has been answered (a `setImmediate` after it, so the answer goes out first);
 * then, with `--repository` paths, the read-ahead (./readAhead.ts) reads what the first calls read. Nothing
 * of the SDK is touched and nothing is written; `--no-warmup` turns it off. It happens once per process.
 */
import { errorMessage, type Logger } from '@mcpkit/protocol-core';
import type { ReadAheadEngine } from './readAhead.js';
import { loadEngine } from './tools/common.js';

export interface EnginePreload {
  /** A session's server was built: start the warm-up after the current turn (the first time only). */
  sessionOpened(): void;
}

export interface EnginePreloadOptions {
  /** Run with the loaded engine (the read-ahead); none: the engine is only loaded. */
  readAhead?: (engine: ReadAheadEngine) => Promise<void>;
  /** Test seam: how the engine is loaded. Default: `loadEngine`. */
  load?: () => Promise<ReadAheadEngine>;
}

export function createEnginePreload(logger: Logger, options: EnginePreloadOptions = {}): EnginePreload {
  const { readAhead, load = loadEngine } = options;
  let started = false;
  const run = async () => {
    const t0 = performance.now();
    const engine = await load();
    logger.debug(`warm-up: engine loaded in ${Math.round(performance.now() - t0)} ms`);
    await readAhead?.(engine);
  };
  return {
    sessionOpened() {
      if (started) return;
      started = true;
      setImmediate(() => {
        run().catch((error: unknown) => logger.debug(`warm-up: engine load failed: ${errorMessage(error)}`));
      }).unref();
    },
  };
}
