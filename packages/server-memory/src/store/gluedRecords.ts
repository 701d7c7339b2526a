/**
 * Glued records: two or more JSON objects on one line, `{…}{…}`. The reference writes its file with
 * no final newline (so do we), and so do some editors; a line appended to such a file by another
 * program (`echo … >> memory.jsonl`, a script, an older tool) runs on from the last record. Read as
 * one line, both records would be unreadable and set aside.
 *
 * `splitGlued` cuts such a line where each object ends (found by a scan that skips strings, so a `}{`
 * inside a string is not a boundary). The caller keeps the parts only when every one of them is a
 * record it accepts; otherwise the line stays one unreadable line, as before.
 */

/** Where the JSON object or array starting at `from` ends (the index after its closing bracket); -1: it does not end. */
function valueEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91)
      depth++; // { [
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1; // } ]
  }
  return -1;
}

const isBlank = (c: number) => c === 32 || c === 9;

/**
 * The objects glued together on `line` (at least two, each `{…}`, with nothing but spaces or tabs
 * between them), or null when the line is not made of such objects. The parts are not parsed:
 * whether each one is a record is for the caller to decide.
 */
export function splitGlued(line: string): string[] | null {
  const parts: string[] = [];
  let at = 0;
  while (at < line.length && isBlank(line.charCodeAt(at))) at++;
  while (at < line.length) {
    if (line.charCodeAt(at) !== 123) return null;
    const end = valueEnd(line, at);
    if (end < 0) return null;
    parts.push(line.slice(at, end));
    at = end;
    while (at < line.length && isBlank(line.charCodeAt(at))) at++;
  }
  return parts.length >= 2 ? parts : null;
}
