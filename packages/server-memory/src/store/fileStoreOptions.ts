import type { Logger } from '@mcpkit/protocol-core';
import type { LockClock } from './lockClock.js';

export interface FileStoreOptions {
  /** Absolute path of the memory file (`…/memory.jsonl`). */
  path: string;
  logger?: Logger;
  /**
   * How `openFileStore` loads the graph. `wait` (default): it resolves with the graph loaded.
   * `background`: it resolves once the file is known to be a memory graph (its first line is a
   * record; otherwise it reads on to find out), and the graph loads in the background; every call
   * waits for it, and `ready()` reports how far it is. The CLI does this, so that `initialize` is
   * answered at once whatever the size of the file.
   */
  load?: 'wait' | 'background';
  /** Fold the journal into the snapshot this long after the last write. Default 2000 ms. */
  compactDelayMs?: number;
  /**
   * A lock this old whose owner cannot be checked (another host) is taken over. A lock on this host
   * whose owner is gone (dead, or its pid now belongs to another process) is replaced at once. Default 10000 ms.
   */
  lockStaleMs?: number;
  /** A call gives up waiting for the lock after this long (a clear `ToolError`). Default 30000 ms. */
  lockTimeoutMs?: number;
  /**
   * Keep the lock this long after a write (or any step under it) for the next one, so that a burst takes
   * it once; it is released when nothing came meanwhile, and after 100 ms held in all (another process
   * waiting for it gets its turn). 0: release it after every step. Default 10 ms.
   */
  lockLingerMs?: number;
  /**
   * The clock a wait for the lock runs on: the deadline of `lockTimeoutMs`, the back-off between tries, the
   * notice after 1 s of waiting. Default `Date.now()` and Node's timers; a test passes one it drives.
   */
  lockClock?: LockClock;
  /**
   * With `load: 'wait'`, when another process holds the lock at open: `wait` for it (`openFileStore`
   * resolves with the graph loaded), or `defer`: resolve once the snapshot is read, and read the
   * journal on the first call, which waits for the lock. Default `wait`.
   */
  openWhenLocked?: 'wait' | 'defer';
  /** How often to look for other processes' changes while `watch()` handles are held. Default 1000 ms. */
  pollMs?: number;
  /**
   * @deprecated Ignored. Graphs below this size used to be rewritten whole on every mutation; every
   * mutation now goes through the journal, whatever the size.
   */
  smallFileBytes?: number;
}
