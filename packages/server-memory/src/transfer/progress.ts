/** Number formats of the import and export progress lines. */

/** `12,345`. */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** `12.3 MiB`. */
export const formatMiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
