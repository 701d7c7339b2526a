import { NO_MORE_CONTENT, truncationNotice } from './constants.js';

/**
 * Pagination counts Unicode code points, as the reference does (Python `str` slicing), so a
 * `start_index` from the reference means the same here even with emoji or CJK supplementary characters.
 */

/** Number of code points in `s` (a surrogate pair counts once). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** UTF-16 offset of code point `index` (or `s.length` when past the end). */
function offsetOf(s: string, index: number, from = 0, fromIndex = 0): number {
  let i = from;
  for (let n = fromIndex; n < index && i < s.length; n++, i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return i;
}

/** `s[start : start + length]` in code points (Python slice semantics for non-negative bounds). */
export function sliceCodePoints(s: string, start: number, length: number): string {
  const begin = offsetOf(s, start);
  const end = offsetOf(s, start + length, begin, start);
  return s.slice(begin, end);
}

export interface Page {
  /** The text after the `Contents of <url>:\n` header: a slice, maybe with the truncation notice. */
  text: string;
  totalLength: number;
  /** Where the next call should start, or `null` when this page reaches the end. */
  nextStartIndex: number | null;
}

/**
 * The reference's pagination, exactly: past the end (or an empty slice) gives the "No more content"
 * error text; a full slice with more left gets the truncation notice naming the next start index.
 */
export function paginate(content: string, startIndex: number, maxLength: number): Page {
  const totalLength = codePointLength(content);
  if (startIndex >= totalLength) return { text: NO_MORE_CONTENT, totalLength, nextStartIndex: null };
  const slice = sliceCodePoints(content, startIndex, maxLength);
  if (!slice) return { text: NO_MORE_CONTENT, totalLength, nextStartIndex: null };
  // The reference's test (a full slice and something left) is the same as: the slice ends before the end.
  const end = startIndex + maxLength;
  if (end < totalLength) return { text: slice + truncationNotice(end), totalLength, nextStartIndex: end };
  return { text: slice, totalLength, nextStartIndex: null };
}
