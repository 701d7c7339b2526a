/**
 * Sizes and durations as the error messages show them (`4.9 KiB`, `2 s`, `200 ms`); the same as
 * @mcpkit/net's. Kept here because the conversion worker (content/convert.ts) imports it: the worker
 * bundle keeps dependencies external and must not load a workspace package (nor its ipaddr.js).
 */

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}

export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A measured time, rounded: `850 ms`, `2.3 s`, `12 s`. */
export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`;
}
