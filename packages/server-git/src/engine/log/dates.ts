/**
 * `--since` / `--until` values as git reads them (its "approxidate"), for the forms people and models
 * actually write: ISO 8601, `2024-01-15`, `Jan 15 2024`, `15 Jan 2024`, `January 15, 2024`, `@<unix>`,
 * `N units ago`, `yesterday`, `today`, `now`, `last week`, `noon`, `midnight`.
 *
 * git quirks kept on purpose (so results match `git log --since`): a date without a time takes the
 * current time of day; times without a zone are local; `N units` without `ago` still means the past.
 * Where git silently reads garbage as "now", this returns null so the caller can say what is wrong.
 */

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  last: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800 };

function monthIndex(word: string): number | null {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return null;
  const i = MONTHS.findIndex((m) => m.startsWith(w));
  return i < 0 ? null : i;
}

function unitOf(word: string): string | null {
  const w = word.toLowerCase().replace(/s$/, '');
  if (w in UNIT_SECONDS || w === 'month' || w === 'year') return w;
  if (w === 'sec') return 'second';
  if (w === 'min') return 'minute';
  if (w === 'hr') return 'hour';
  return null;
}

/** `+0500`, `+05:00`, `-08`, `Z`, `UTC`, `GMT` → minutes east of UTC. */
function parseZone(zone: string | undefined): number | null {
  if (zone === undefined || zone === '') return null;
  const z = zone.trim().toUpperCase();
  if (z === 'Z' || z === 'UTC' || z === 'GMT') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(z);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

interface Clock {
  hour: number;
  minute: number;
  second: number;
}

/** Seconds since the epoch for a wall-clock date, in `zone` (minutes east) or, without one, local time. */
function toSeconds(year: number, month: number, day: number, clock: Clock, zone: number | null): number {
  if (zone === null) return Math.floor(new Date(year, month, day, clock.hour, clock.minute, clock.second).getTime() / 1000);
  return Math.floor(Date.UTC(year, month, day, clock.hour, clock.minute, clock.second) / 1000) - zone * 60;
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 0 || month > 11 || day < 1 || day > 31 || year < 1970 || year > 9999) return false;
  const d = new Date(Date.UTC(year, month, day));
  return d.getUTCMonth() === month;
}

/** Splits an optional `HH:MM[:SS[.fff]] [zone]` tail; null when the tail is something else. */
function parseTimeTail(tail: string, now: Date): { clock: Clock; zone: number | null } | null {
  const t = tail.trim();
  if (t === '') return { clock: { hour: now.getHours(), minute: now.getMinutes(), second: now.getSeconds() }, zone: null };
  const m = /^(?:T|\s+)?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i.exec(t);
  if (!m) {
    // Only a zone after a date-only value: git keeps the current time of day.
    const zone = parseZone(t);
    return zone === null ? null : { clock: { hour: now.getHours(), minute: now.getMinutes(), second: now.getSeconds() }, zone };
  }
  const clock = { hour: Number(m[1]), minute: Number(m[2]), second: Number(m[3] ?? 0) };
  if (clock.hour > 23 || clock.minute > 59 || clock.second > 60) return null;
  return { clock, zone: parseZone(m[4]) };
}

function absolute(value: string, now: Date): number | null {
  // ISO 8601 and friends: 2024-01-15, 2024/01/15, 2024.01.15, optionally with a time and zone.
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(.*)$/.exec(value);
  if (m) {
    const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
    const time = parseTimeTail(m[4]!, now);
    if (!time || !validDate(year, month, day)) return null;
    return toSeconds(year, month, day, time.clock, time.zone);
  }
  // Jan 15 2024, January 15, 2024, Mon Jan 15 14:30:25 2024 +0100 (git's own format)
  m = /^(?:[a-z]{3,9},?\s+)?([a-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{1,2}:\d{2}(?::\d{2})?)\s+)?(\d{4})(.*)$/i.exec(value);
  if (m) {
    const month = monthIndex(m[1]!);
    if (month === null) return null;
    const time = parseTimeTail(`${m[3] ?? ''} ${m[5]!}`.trim(), now);
    if (!time || !validDate(Number(m[4]), month, Number(m[2]))) return null;
    return toSeconds(Number(m[4]), month, Number(m[2]), time.clock, time.zone);
  }
  // 15 Jan 2024, 15 January, 2024
  m = /^(?:[a-z]{3,9},?\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3,9}\.?),?\s+(\d{4})(.*)$/i.exec(value);
  if (m) {
    const month = monthIndex(m[2]!);
    if (month === null) return null;
    const time = parseTimeTail(m[4]!, now);
    if (!time || !validDate(Number(m[3]), month, Number(m[1]))) return null;
    return toSeconds(Number(m[3]), month, Number(m[1]), time.clock, time.zone);
  }
  return null;
}

function relative(value: string, now: Date): number | null {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const v = value.toLowerCase().replace(/[.,_]/g, ' ').replace(/\s+/g, ' ').trim();
  if (v === 'now' || v === 'today') return nowSeconds;
  if (v === 'yesterday') return nowSeconds - 86_400;
  if (v === 'midnight' || v === 'noon') {
    const hour = v === 'noon' ? 12 : 0;
    const d = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour, 0, 0);
    // git: a time of day still ahead of us today means yesterday's.
    if (d.getTime() > now.getTime()) d.setDate(d.getDate() - 1);
    return Math.floor(d.getTime() / 1000);
  }
  // "2 weeks ago", "3 days", "last week", "a month ago", "1.year.ago", several parts: "1 day 2 hours ago"
  const words = v.replace(/ ago$/, '').split(' ');
  if (words.length === 0 || words.length % 2 !== 0) return null;
  const d = new Date(now.getTime());
  let seconds = 0;
  for (let i = 0; i < words.length; i += 2) {
    const count = /^\d+$/.test(words[i]!) ? Number(words[i]) : NUMBERS[words[i]!];
    if (count === undefined) return null;
    const word = words[i + 1]!;
    // git reads "last monday" as "a week ago" too.
    const unit = WEEKDAYS.includes(word) ? 'week' : unitOf(word);
    if (unit === null) return null;
    if (unit === 'month') d.setMonth(d.getMonth() - count);
    else if (unit === 'year') d.setFullYear(d.getFullYear() - count);
    else seconds += count * UNIT_SECONDS[unit]!;
  }
  return Math.floor(d.getTime() / 1000) - seconds;
}

/**
 * A `--since`/`--until` value → seconds since the epoch, or null when it is not a date this server
 * understands. `now` is the reference point for relative forms.
 */
export function parseGitDate(input: string, now: Date = new Date()): number | null {
  const value = input.trim().replace(/\s+/g, ' ');
  if (value === '') return null;
  const unix = /^@(\d+)$/.exec(value);
  if (unix) return Number(unix[1]);
  return absolute(value, now) ?? relative(value, now);
}
