import { type Telemetry, timeStoreCalls } from '@mcpkit/protocol-core';
import type { GraphStore } from './store/types.js';

/** The graph operations whose durations telemetry records (`mcpkit.store.operation.duration`). */
const TIMED = [
  'createEntities',
  'createRelations',
  'addObservations',
  'deleteEntities',
  'deleteObservations',
  'deleteRelations',
  'readGraph',
  'searchNodes',
  'openNodes',
] as const satisfies readonly (keyof GraphStore)[];

/** `store` with its graph operations timed as `kind` (`file`, `postgres`); `store` itself when telemetry is off. */
export function timedStore<S extends GraphStore>(store: S, kind: string, telemetry: Telemetry): S {
  return timeStoreCalls(store, kind, TIMED, telemetry);
}
