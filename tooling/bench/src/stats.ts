/** The bench's statistics and the way figures are printed (ratios, milliseconds, MiB, tables). */
export type Cell = string | number;

export interface Stats {
  n: number;
  median: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Order statistics of `samples` (nearest-rank percentiles). Throws on an empty list. */
export function stats(samples: readonly number[]): Stats {
  if (samples.length === 0) throw new Error('stats() needs at least one sample');
  const s = [...samples].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return {
    n: s.length,
    median,
    p90: pct(90),
    p99: pct(99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0]!,
    max: s[s.length - 1]!,
  };
}

/** `ours / ref` as `0.52×` (lower is better for times and memory, higher for throughput). */
export function ratio(ours: number, ref: number): string {
  if (!Number.isFinite(ours) || !Number.isFinite(ref) || ref === 0) return 'n/a';
  return `${(ours / ref).toFixed(2)}×`;
}

/** `ratio(ours, other)` with both values: `0.43× (121.1 ms vs 282.4 ms)`, the detail of a time check. */
export function versus(ours: number, other: number): string {
  return `${ratio(ours, other)} (${ms(ours)} vs ${ms(other)})`;
}

/** Milliseconds with a precision that suits the size: `0.083 ms`, `1.24 ms`, `61.2 ms`. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = value < 1 ? 3 : value < 10 ? 2 : 1;
  return `${value.toFixed(digits)} ms`;
}

/** Bytes as MiB with one decimal: `48.3 MiB`. */
export function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Aligned plain-text table (first column left-aligned, the rest right-aligned). */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(text[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...text.slice(1).map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------
