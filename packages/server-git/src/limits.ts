/**
 * How large an answer may get. The official SDK clients drop the connection on a message over 10 MiB,
 * and a tool's text travels twice (`content` and `structuredContent`), JSON-escaped. So `max_bytes`
 * accepts at most MAX_BYTES_LIMIT, and tools that do not page cap their text and lists at ANSWER_CAP
 * each, with a notice saying what was left out and how to see it.
 */

/** The largest `max_bytes` any tool accepts (4 MiB). */
export const MAX_BYTES_LIMIT = 4 * 1024 * 1024;

/** The text, and separately the JSON of the structured lists, of an answer that does not page (2 MiB each). */
export const ANSWER_CAP = 2 * 1024 * 1024;

/** How many of `lines` fit in `budget` bytes joined with '\n' (at least one, if there is one). */
function fitLines(lines: readonly string[], budget: number): number {
  let used = 0;
  let n = 0;
  for (const line of lines) {
    used += Buffer.byteLength(line) + (n > 0 ? 1 : 0);
    if (n > 0 && used > budget) break;
    n++;
  }
  return n;
}

/** The first items of `items` whose JSON fits in `budget` bytes. */
export function fitItems<T>(items: readonly T[], budget: number): T[] {
  let used = 2;
  let n = 0;
  for (const item of items) {
    used += Buffer.byteLength(JSON.stringify(item)) + 1;
    if (used > budget) break;
    n++;
  }
  return n === items.length ? [...items] : items.slice(0, n);
}

/**
 * `text` cut at a line end to `budget` bytes, with a notice naming how many lines were left out and
 * `hint` (how to see them); unchanged when it fits.
 */
export function capText(text: string, hint: string, budget = ANSWER_CAP): { text: string; capped: boolean } {
  if (Buffer.byteLength(text) <= budget) return { text, capped: false };
  const lines = text.split('\n');
  const n = fitLines(lines, budget);
  return {
    text: `${lines.slice(0, n).join('\n')}\n[Output capped at ${budget} bytes: ${lines.length - n} more lines not shown. ${hint}]`,
    capped: true,
  };
}
