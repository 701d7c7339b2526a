import type { GraphStore } from './store/types.js';
import type { Limits } from './tools/limits.js';

/** What every tool and resource of this server receives as `ctx`: the shared store and the caps, never module globals. */
export interface MemoryContext {
  /** Where the graph lives; one per process, shared by every session. */
  store: GraphStore;
  /** Caps on what one call may write (`--max-…` flags). */
  limits: Limits;
}
