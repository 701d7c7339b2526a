/**
 * Commits as this server's tools use them, parsed once per repository (kept within the memory budget), and the
 * `git rev-list` walk over them: newest committer date first, every parent followed, ties in the
 * order the commits were reached (git's date-ordered queue).
 */
import { OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import { readObjectContent } from '../git/objectRead.js';
import type { Repo } from '../repo.js';

export interface Person {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** isomorphic-git's offset: minutes WEST of UTC (like Date#getTimezoneOffset). */
  timezoneOffset: number;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  /** The whole message as stored (GitPython's `commit.message`), usually ending with `\n`. */
  message: string;
}

/** What a parsed commit weighs beyond its strings: the records, the parents' array, the oid strings (an estimate). */
const COMMIT_BYTES = 6 * OBJECT_OVERHEAD + 4 * 56;

function commitBytes(info: CommitInfo): number {
  const person = (p: Person) => stringBytes(p.name) + stringBytes(p.email);
  return COMMIT_BYTES + info.parents.length * 56 + person(info.author) + person(info.committer) + stringBytes(info.message);
}

/** Parsed commits, kept per repository within the memory budget. */
const commits = (repo: Repo) => repo.held.part<CommitInfo>('commits');

/** `Name <email> 1705325425 +0100` → a Person (isomorphic-git's west-positive offset). */
function parsePerson(line: string): Person {
  const m = /^(.*) <([^>]*)> (-?\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!m) return { name: line, email: '', timestamp: 0, timezoneOffset: 0 };
  const east = (Number(m[5]) * 60 + Number(m[6])) * (m[4] === '-' ? -1 : 1);
  return { name: m[1]!, email: m[2]!, timestamp: Number(m[3]), timezoneOffset: east === 0 ? 0 : -east };
}

/**
 * A commit object's raw text parsed: headers, then the message exactly as stored (isomorphic-git's
 * readCommit adds a final newline when there is none, which GitPython's `commit.message` does not).
 */
function parseCommitText(oid: string, raw: string): CommitInfo {
  const split = raw.indexOf('\n\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  const info: CommitInfo = {
    oid,
    tree: '',
    parents: [],
    author: parsePerson(''),
    committer: parsePerson(''),
    message: split < 0 ? '' : raw.slice(split + 2),
  };
  for (const line of head.split('\n')) {
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') info.tree = value;
    else if (key === 'parent') info.parents.push(value);
    else if (key === 'author') info.author = parsePerson(value);
    else if (key === 'committer') info.committer = parsePerson(value);
  }
  return info;
}

/** A commit already parsed for this repository, without reading anything. */
export function cachedCommit(repo: Repo, oid: string): CommitInfo | undefined {
  return commits(repo).get(oid);
}

/** A commit by full oid (throws isomorphic-git's error when it is missing or not a commit). */
export async function readCommitInfo(repo: Repo, oid: string): Promise<CommitInfo> {
  const kept = commits(repo);
  const hit = kept.get(oid);
  if (hit) return hit;
  const { type, object } = await readObjectContent(repo, oid);
  if (type !== 'commit') throw new Error(`${oid} is a ${type}, not a commit`);
  const info = parseCommitText(oid, Buffer.from(object as Uint8Array).toString('utf8'));
  kept.set(oid, info, commitBytes(info));
  return info;
}

export interface WalkOptions {
  /** Only commits with a committer date at or after this (seconds); older ones end their line, as `--since` does. */
  since?: number;
  /** Skip commits with a committer date after this (seconds), still walking their parents (`--until`). */
  until?: number;
  /** The walk ends early (as if the history ended) once this aborts: the caller tells a cancel from the end. */
  signal?: AbortSignal;
}

interface Queued {
  commit: CommitInfo;
  seq: number;
}

/** Max-heap on committer date; equal dates come out first-in first-out. */
class DateQueue {
  private items: Queued[] = [];
  private seq = 0;
  get size() {
    return this.items.length;
  }
  private before(a: Queued, b: Queued): boolean {
    const da = a.commit.committer.timestamp;
    const db = b.commit.committer.timestamp;
    return da !== db ? da > db : a.seq < b.seq;
  }
  push(commit: CommitInfo): void {
    const items = this.items;
    items.push({ commit, seq: this.seq++ });
    let i = items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(items[i]!, items[p]!)) break;
      [items[i], items[p]] = [items[p]!, items[i]!];
      i = p;
    }
  }
  pop(): CommitInfo | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && this.before(items[l]!, items[best]!)) best = l;
        if (r < items.length && this.before(items[r]!, items[best]!)) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top?.commit;
  }
}

/** The commits reachable from `starts`, in `git rev-list <starts>` order (optionally `--since`/`--until`). */
export async function* revList(repo: Repo, starts: readonly string[], options: WalkOptions = {}): AsyncGenerator<CommitInfo> {
  const seen = new Set<string>();
  const queue = new DateQueue();
  for (const oid of starts) {
    if (seen.has(oid)) continue;
    seen.add(oid);
    queue.push(await readCommitInfo(repo, oid));
  }
  while (queue.size > 0) {
    if (options.signal?.aborted) return;
    const commit = queue.pop()!;
    const date = commit.committer.timestamp;
    // git stops a line at the first commit older than --since (its parents are not looked at).
    if (options.since !== undefined && date < options.since) continue;
    const parents = await Promise.all(commit.parents.filter((p) => !seen.has(p)).map((p) => readCommitInfo(repo, p)));
    for (const parent of parents) {
      if (seen.has(parent.oid)) continue;
      seen.add(parent.oid);
      queue.push(parent);
    }
    if (options.until !== undefined && date > options.until) continue;
    yield commit;
  }
}

/** True when `ancestor` is `tip` or reachable from it. Memoized per repository and ancestor. */
export async function reaches(repo: Repo, tip: string, ancestor: string): Promise<boolean> {
  // One answer map per ancestor asked about, kept within the memory budget (re-weighed after each walk).
  const answers = repo.held.part<Map<string, boolean>>('reaches');
  const known = answers.get(ancestor) ?? new Map([[ancestor, true]]);
  const hit = known.get(tip);
  if (hit !== undefined) return hit;
  // Depth-first over parents, recording the answer for every commit on the way.
  const visited = new Set<string>();
  const stack: string[] = [tip];
  let found = false;
  while (stack.length > 0 && !found) {
    const oid = stack.pop()!;
    if (visited.has(oid)) continue;
    visited.add(oid);
    const cached = known.get(oid);
    if (cached === true) {
      found = true;
      break;
    }
    if (cached === false) continue;
    const commit = await readCommitInfo(repo, oid);
    for (const p of commit.parents) if (!visited.has(p)) stack.push(p);
  }
  // Without a hit, everything visited cannot reach it; with one, only the tip is known for sure.
  if (found) known.set(tip, true);
  else for (const oid of visited) known.set(oid, false);
  answers.set(ancestor, known, OBJECT_OVERHEAD + known.size * (OBJECT_OVERHEAD + 56));
  return found;
}
