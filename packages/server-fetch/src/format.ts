/**
 * Sizes and durations as the messages show them (`4.9 KiB`, `2 s`, `200 ms`). `formatBytes` is
 * protocol-core's, from its `/size` subpath: the conversion worker (content/convert.ts) imports this
 * module, and the worker bundle keeps dependencies external, so it must not load protocol-core's main
 * entry (the SDK, which the bin does not install) nor @mcpkit/net (ipaddr.js).
 */

export { formatBytes } from '@mcpkit/protocol-core/size';

export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A measured time, rounded: `850 ms`, `2.3 s`, `12 s`. */
export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
}
