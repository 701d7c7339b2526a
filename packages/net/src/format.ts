/**
 * Sizes and durations as the error messages show them (`4.9 KiB`, `2 s`, `200 ms`). `formatBytes` is
 * the text of `@mcpkit/protocol-core`'s `formatBytes`, the repository's exported one: this package does
 * not depend on protocol-core, so it keeps this copy for its own messages and does not export it.
 */

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}

export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
