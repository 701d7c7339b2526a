/** The reference's two `git_log` texts, rendered from commits. */
import { actorRepr, eastOffset, pyDatetimeStr, pyRepr } from '../format/python.js';
import type { CommitInfo, Person } from './commits.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** git's default date format at the person's own offset: `Mon Jan 15 14:30:25 2024 +0100`. */
function gitDefaultDate(person: Pick<Person, 'timestamp' | 'timezoneOffset'>): string {
  const east = eastOffset(person.timezoneOffset);
  const d = new Date((person.timestamp + east * 60) * 1000);
  const sign = east < 0 ? '-' : '+';
  const abs = Math.abs(east);
  const zone = `${sign}${pad(Math.trunc(abs / 60))}${pad(abs % 60)}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()} ${zone}`;
}

/** git's `%s`: the first paragraph of the message, its lines joined with spaces. */
export function subject(message: string): string {
  const lines = message.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const parts: string[] = [];
  for (; i < lines.length && lines[i]!.trim() !== ''; i++) parts.push(lines[i]!.replace(/\s+$/, ''));
  return parts.join(' ');
}

/** One entry of the reference's plain `git_log` (GitPython reprs). */
export function pythonEntry(c: CommitInfo): string {
  return (
    `Commit: ${pyRepr(c.oid)}\n` +
    `Author: ${actorRepr(c.author.name, c.author.email)}\n` +
    `Date: ${pyDatetimeStr(c.author.timestamp, eastOffset(c.author.timezoneOffset))}\n` +
    `Message: ${pyRepr(c.message)}\n`
  );
}

/**
 * The lines the reference splits when filtering by date: the output of
 * `git log --format=%H%n%an%n%ad%n%s%n` (5 lines a commit: the format's own trailing `%n` plus git's
 * separator) without its final newline (GitPython strips one), split on `\n`.
 */
export function dateFilteredLines(commits: Iterable<CommitInfo>): string[] {
  let out = '';
  for (const c of commits) out += `${c.oid}\n${c.author.name}\n${gitDefaultDate(c.author)}\n${subject(c.message)}\n\n`;
  if (out.endsWith('\n')) out = out.slice(0, -1);
  return out.split('\n');
}

/**
 * The reference's grouping of those lines by 4 (its documented bug: from the second commit on, the
 * fields are shifted), at most `maxCount` entries.
 */
export function dateFilteredEntries(lines: readonly string[], maxCount: number): string[] {
  const log: string[] = [];
  for (let i = 0; i < lines.length; i += 4) {
    if (i + 3 < lines.length && log.length < maxCount) {
      log.push(`Commit: ${lines[i]}\nAuthor: ${lines[i + 1]}\nDate: ${lines[i + 2]}\nMessage: ${lines[i + 3]}\n`);
    }
  }
  return log;
}
