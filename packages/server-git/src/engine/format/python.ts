/**
 * The reference server is Python: parts of its output are Python `repr()`s of GitPython objects
 * (`git_log`, `git_show`). These render the same text from plain values.
 */

// Characters Python's str.isprintable() rejects (besides the ASCII controls): other, separators but space.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function escapeChar(ch: string, quote: string): string {
  if (ch === '\\') return '\\\\';
  if (ch === quote) return `\\${quote}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  if (ch === ' ' || !NON_PRINTABLE.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** Python's `repr(str)`: single quotes unless the text has `'` and no `"`. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) out += escapeChar(ch, quote);
  return out + quote;
}

/** GitPython's `repr(Actor)`: `<git.Actor "Name <email>">`. */
export function actorRepr(name: string, email: string): string {
  return `<git.Actor "${name} <${email}>">`;
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

/** A git timestamp (seconds) shown at its own offset (`offsetMinutes` east of UTC). */
function wallClock(seconds: number, offsetMinutes: number) {
  const d = new Date((seconds + offsetMinutes * 60) * 1000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** `+01:00` for 60 minutes east. */
export function isoOffset(offsetMinutes: number): string {
  return `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
}

/** Python's `str(datetime)` with a tz: `2024-01-15 14:30:25+01:00`. */
export function pyDatetimeStr(seconds: number, offsetMinutes: number): string {
  const t = wallClock(seconds, offsetMinutes);
  return `${t.year}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${isoOffset(offsetMinutes)}`;
}

/**
 * Python's `repr(datetime)` of GitPython's `authored_datetime`:
 * `datetime.datetime(2024, 1, 15, 14, 30, 25, tzinfo=<git.objects.util.tzoffset object at 0x…>)`.
 * Python prints the object's memory address there; this prints a fixed one per offset, so the text is
 * the same shape but deterministic.
 */
export function pyDatetimeRepr(seconds: number, offsetMinutes: number): string {
  const t = wallClock(seconds, offsetMinutes);
  const parts = [t.year, t.month, t.day, t.hour, t.minute];
  if (t.second !== 0) parts.push(t.second);
  const address = `0x7f${(offsetMinutes * 60 + 50_400).toString(16).padStart(10, '0')}`;
  return `datetime.datetime(${parts.join(', ')}, tzinfo=<git.objects.util.tzoffset object at ${address}>)`;
}

/** isomorphic-git's `timezoneOffset` (minutes, west positive, like Date#getTimezoneOffset) → minutes east. */
export function eastOffset(timezoneOffset: number): number {
  return timezoneOffset === 0 ? 0 : -timezoneOffset;
}
