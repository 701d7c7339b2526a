/**
 * Who a commit is by: `GIT_AUTHOR_*` / `GIT_COMMITTER_*` from the server's environment, then
 * `author.*` / `committer.*` and `user.*` from the repository's config, then from the user's global
 * config. Never guessed: without a name and an email the commit is refused with a GitError saying how
 * to set one. Dates come from `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` (git's raw, ISO 8601 and
 * RFC 2822 forms) or the clock.
 */
import { GitError } from '../errors.js';
import type { Repo } from '../repo.js';
import { allConfigs, configValue, type UserEnv } from './gitConfig.js';

export interface Person {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes east of UTC (+60 for +0100). */
  offset: number;
}

/** `+0100` for 60 minutes east. */
function tzString(offset: number): string {
  const abs = Math.abs(offset);
  return `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** `Name <email> 1705325425 +0100`, as in a commit header. */
export function formatPerson(p: Person): string {
  return `${p.name} <${p.email}> ${p.timestamp} ${tzString(p.offset)}`;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function parseTz(tz: string | undefined): number | null {
  if (tz === undefined) return null;
  if (tz === 'Z' || tz === 'z' || tz === 'UTC' || tz === 'GMT') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function localOffset(utcSeconds: number): number {
  return -new Date(utcSeconds * 1000).getTimezoneOffset();
}

/** From wall-clock fields and an offset (null = the server's local time zone). */
function fromFields(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  offset: number | null,
): { timestamp: number; offset: number } {
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
  if (offset !== null) return { timestamp: asUtc - offset * 60, offset };
  const local = new Date(y, mo - 1, d, h, mi, s).getTime() / 1000;
  return { timestamp: local, offset: localOffset(local) };
}

/** Parses a GIT_*_DATE value; null when the form is not recognized. */
function parseGitDate(value: string): { timestamp: number; offset: number } | null {
  const v = value.trim();
  let m = /^@?(\d+)(?:\s+([+-]\d{4}))?$/.exec(v);
  if (m) {
    const timestamp = Number(m[1]);
    const offset = m[2] ? parseTz(m[2]) : 0;
    return offset === null ? null : { timestamp, offset };
  }
  m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$/.exec(v);
  if (m) {
    const offset = m[7] === undefined ? null : parseTz(m[7]);
    return fromFields(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), offset);
  }
  // RFC 2822 (`Mon, 15 Jan 2024 14:30:25 +0100`) and git's default (`Mon Jan 15 14:30:25 2024 +0100`).
  m = /^(?:[A-Za-z]{3},?\s+)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?(?:\s+([+-]\d{4}|Z|UTC|GMT))?$/.exec(v);
  if (m && MONTHS.includes(m[2]!.toLowerCase())) {
    const offset = m[7] === undefined ? null : parseTz(m[7]);
    return fromFields(
      Number(m[3]),
      MONTHS.indexOf(m[2]!.toLowerCase()) + 1,
      Number(m[1]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6] ?? 0),
      offset,
    );
  }
  m = /^(?:[A-Za-z]{3}\s+)?([A-Za-z]{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})(?:\s+([+-]\d{4}))?$/.exec(v);
  if (m && MONTHS.includes(m[1]!.toLowerCase())) {
    const offset = m[7] === undefined ? null : parseTz(m[7]);
    return fromFields(
      Number(m[6]),
      MONTHS.indexOf(m[1]!.toLowerCase()) + 1,
      Number(m[2]),
      Number(m[3]),
      Number(m[4]),
      Number(m[5]),
      offset,
    );
  }
  return null;
}

/** Git drops `<`, `>` and newlines from names and emails, and trims them. */
function clean(text: string): string {
  return text.replace(/[<>\n]/g, '').trim();
}

export type Role = 'author' | 'committer';

/** The author or committer for a new commit, or a GitError explaining how to configure one. */
export function resolvePerson(repo: Repo, user: UserEnv, role: Role, now = Date.now()): Person {
  const env = user.env;
  const upper = role.toUpperCase();
  const configs = allConfigs(repo, user);
  const name = env[`GIT_${upper}_NAME`] ?? configValue(configs, `${role}.name`) ?? configValue(configs, 'user.name');
  const email = env[`GIT_${upper}_EMAIL`] ?? configValue(configs, `${role}.email`) ?? configValue(configs, 'user.email') ?? env.EMAIL;
  const label = role === 'author' ? 'Author' : 'Committer';
  if (!name || clean(name) === '' || email === undefined) {
    throw new GitError(
      'IDENTITY',
      `${label} identity unknown: no ${!name || clean(name) === '' ? 'name' : 'email'} is configured, and this server never makes one up. Set one with\n\n` +
        '  git config --global user.email "you@example.com"\n  git config --global user.name "Your Name"\n\n' +
        `(omit --global to set it for this repository only), or start the server with GIT_${upper}_NAME and GIT_${upper}_EMAIL in its environment. Nothing was changed.`,
    );
  }
  const dateText = env[`GIT_${upper}_DATE`];
  let when: { timestamp: number; offset: number };
  if (dateText !== undefined && dateText !== '') {
    const parsed = parseGitDate(dateText);
    if (!parsed) throw new GitError('IDENTITY', `invalid date format: ${dateText} (in GIT_${upper}_DATE). Nothing was changed.`);
    when = parsed;
  } else {
    const timestamp = Math.floor(now / 1000);
    when = { timestamp, offset: localOffset(timestamp) };
  }
  return { name: clean(name), email: clean(email), ...when };
}
