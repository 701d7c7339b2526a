/**
 * Object reads in isomorphic-git's shapes (`readObject`, `readTree`, `readCommit`, `readBlob`), answered
 * from the repository's ObjectStore (objectStore.ts) and parsed the way isomorphic-git parses them. Whatever
 * is not the plain case (a missing object, a type to peel or refuse, a tag, a tree entry with an unusual
 * mode or a name isomorphic-git checks) goes to isomorphic-git itself, so results and errors stay its own;
 * isomorphic-git then reads the object through the same store (objectFs.ts), so a damaged or oversized
 * object is refused there as here, and the store's errors (objectLimits.ts) are never retried elsewhere.
 */
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';
import type { ObjectType } from './objectStore.js';

export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

interface Person {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

export interface ParsedCommit {
  message: string;
  tree: string;
  parent: string[];
  author: Person;
  committer: Person;
  gpgsig?: string;
  [header: string]: unknown;
}

/**
 * The mode of the tree entry starting at `at` and where its name starts, or null for a mode that is not
 * one of git's five canonical spellings (`40000`, `100644`, `100755`, `120000`, `160000`).
 */
function entryMode(buf: Buffer, at: number): { mode: string; type: TreeEntry['type']; name: number } | null {
  let value = 0;
  let i = at;
  for (; i < buf.length && i - at < 7; i++) {
    const b = buf[i]!;
    if (b === 32) break;
    if (b < 0x30 || b > 0x37) return null;
    value = value * 8 + (b - 0x30);
  }
  if (buf[i] !== 32) return null;
  const len = i - at;
  if (len === 5 && value === 0o40000) return { mode: '040000', type: 'tree', name: i + 1 };
  if (len !== 6) return null;
  if (value === 0o100644) return { mode: '100644', type: 'blob', name: i + 1 };
  if (value === 0o100755) return { mode: '100755', type: 'blob', name: i + 1 };
  if (value === 0o120000) return { mode: '120000', type: 'blob', name: i + 1 };
  if (value === 0o160000) return { mode: '160000', type: 'commit', name: i + 1 };
  return null;
}

/** The end (the NUL) of the name starting at `at`, or -1 when the entry is cut short; -2 when the name is not plain ASCII. */
function nameEnd(buf: Buffer, at: number): number {
  let i = at;
  for (; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0) break;
    if (b >= 0x80 || b === 0x5c || b === 0x2f || b === 0x3a) return -2;
  }
  return i === at || i + 21 > buf.length ? -1 : i;
}

/** Whether an ASCII name is one isomorphic-git refuses (`.`, `..`, or one that could stand for `.git`). */
function refusedName(buf: Buffer, start: number, end: number): boolean {
  const first = buf[start]!;
  const last = buf[end - 1]!;
  if (first !== 0x2e && first !== 0x67 && first !== 0x47 && last !== 0x2e && last !== 0x20) return false;
  const path = buf.toString('latin1', start, end);
  const normalized = path.toLowerCase().replace(/[. ]+$/, '');
  return path === '.' || path === '..' || normalized === '.git' || /^\.?git~[1-9]$/.test(normalized);
}

/**
 * A tree object's entries, sorted as isomorphic-git sorts them, or null for anything it would treat
 * specially (an unknown mode; a name with a separator, `.`/`..`, one that could stand for `.git`, or
 * characters whose order or checks need its slower paths): the caller then asks isomorphic-git.
 */
export function parseTreePlain(buf: Buffer): TreeEntry[] | null {
  const out: TreeEntry[] = [];
  let cursor = 0;
  while (cursor < buf.length) {
    const m = entryMode(buf, cursor);
    if (!m) return null;
    let end = nameEnd(buf, m.name);
    if (end === -1) return null;
    let path: string;
    if (end === -2) {
      // Not plain ASCII: decoded, then the checks isomorphic-git makes on such names.
      end = buf.indexOf(0, m.name);
      if (end < 0 || end + 21 > buf.length) return null;
      path = buf.toString('utf8', m.name, end);
      if (/[\\/:\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff\ud800-\udfff]/.test(path)) return null;
      const normalized = path.toLowerCase().replace(/[. ]+$/, '');
      if (normalized === '.git' || /^\.?git~[1-9]$/.test(normalized)) return null;
    } else {
      if (refusedName(buf, m.name, end)) return null;
      path = buf.toString('latin1', m.name, end);
    }
    out.push({ mode: m.mode, path, oid: buf.toString('hex', end + 1, end + 21), type: m.type });
    cursor = end + 21;
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/**
 * The entry `name` of a tree object without parsing the others into objects: the entry (the last of that
 * name, as a Map of parseTreePlain's entries would hold), undefined when there is none, or null when the
 * tree is not plain (parseTreePlain would answer null) and the caller must read it through readTree.
 */
export function findTreeEntry(buf: Buffer, name: string): TreeEntry | undefined | null {
  const target = Buffer.from(name, 'utf8');
  let found: TreeEntry | undefined;
  let cursor = 0;
  while (cursor < buf.length) {
    const m = entryMode(buf, cursor);
    if (!m) return null;
    const end = nameEnd(buf, m.name);
    if (end < 0 || refusedName(buf, m.name, end)) return null;
    if (end - m.name === target.length && buf.compare(target, 0, target.length, m.name, end) === 0) {
      found = { mode: m.mode, path: name, oid: buf.toString('hex', end + 1, end + 21), type: m.type };
    }
    cursor = end + 21;
  }
  return found;
}

function parsePerson(text: string): Person {
  const m = /^(.*) <(.*)> (.*) (.*)$/.exec(text);
  if (!m) throw new Error('unparsable person');
  const tz = /(\+|-)(\d\d)(\d\d)/.exec(m[4]!);
  if (!tz) throw new Error('unparsable time zone');
  const minutes = (tz[1] === '+' ? 1 : -1) * (Number(tz[2]) * 60 + Number(tz[3]));
  return { name: m[1]!, email: m[2]!, timestamp: Number(m[3]), timezoneOffset: minutes === 0 ? minutes : -minutes };
}

function normalizeNewlines(s: string): string {
  return `${s.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;
}

/** A commit's headers and message as isomorphic-git's GitCommit.parse() gives them, or null when it would fail. */
export function parseCommitPlain(text: string): ParsedCommit | null {
  const headEnd = text.indexOf('\n\n');
  const headers = text.slice(0, headEnd).split('\n');
  const hs: string[] = [];
  for (const h of headers) {
    if (h[0] === ' ') hs[hs.length - 1] += `\n${h.slice(1)}`;
    else hs.push(h);
  }
  const keyOf = (h: string) => h.slice(0, h.indexOf(' '));
  const valOf = (h: string) => h.slice(h.indexOf(' ') + 1);
  if (hs.length === 0 || keyOf(hs[0]!) !== 'tree') return null;
  const obj: Record<string, unknown> = { parent: [] as string[] };
  obj.tree = valOf(hs[0]!);
  let i = 1;
  while (i < hs.length && keyOf(hs[i]!) === 'parent') (obj.parent as string[]).push(valOf(hs[i++]!));
  const seen = new Set(['tree', 'parent']);
  for (; i < hs.length; i++) {
    const key = keyOf(hs[i]!);
    if (seen.has(key)) continue;
    seen.add(key);
    obj[key] = valOf(hs[i]!);
  }
  try {
    if (obj.author !== undefined) obj.author = parsePerson(obj.author as string);
    if (obj.committer !== undefined) obj.committer = parsePerson(obj.committer as string);
  } catch {
    return null;
  }
  return { message: normalizeNewlines(text.slice(headEnd + 2)), ...obj } as ParsedCommit;
}

/** An object's type and content (`format: 'content'`). */
export async function readObjectContent(repo: Repo, oid: string): Promise<{ type: ObjectType; object: Buffer }> {
  const raw = repo.objects.read(oid);
  if (raw) return { type: raw.type, object: raw.data };
  const r = await git.readObject({ ...repo.git, oid, format: 'content' });
  return { type: r.type as ObjectType, object: Buffer.from(r.object as Uint8Array) };
}

/** `git.readObject({ format: 'parsed' })`: a commit parsed, a tree's entries, a blob's bytes, a tag parsed. */
export async function readObjectParsed(repo: Repo, oid: string): Promise<{ type: string; object: unknown }> {
  const raw = repo.objects.read(oid);
  if (raw?.type === 'commit') {
    const commit = parseCommitPlain(raw.data.toString('utf8'));
    if (commit) return { type: 'commit', object: commit };
  } else if (raw?.type === 'tree') {
    const tree = parseTreePlain(raw.data);
    if (tree) return { type: 'tree', object: tree };
  } else if (raw?.type === 'blob') {
    return { type: 'blob', object: new Uint8Array(raw.data) };
  }
  const r = await git.readObject({ ...repo.git, oid, format: 'parsed' });
  return { type: r.type, object: r.object };
}

/** `git.readTree` of a tree oid (anything else, e.g. a commit to peel, goes to isomorphic-git). */
export async function readTree(repo: Repo, oid: string): Promise<{ oid: string; tree: TreeEntry[] }> {
  const raw = repo.objects.read(oid);
  if (raw?.type === 'tree') {
    const tree = parseTreePlain(raw.data);
    if (tree) return { oid, tree };
  }
  return (await git.readTree({ ...repo.git, oid })) as { oid: string; tree: TreeEntry[] };
}

/** `git.readCommit` of a commit oid (a tag to peel goes to isomorphic-git). */
export async function readCommit(repo: Repo, oid: string): Promise<{ oid: string; commit: ParsedCommit }> {
  const raw = repo.objects.read(oid);
  if (raw?.type === 'commit') {
    const commit = parseCommitPlain(raw.data.toString('utf8'));
    if (commit) return { oid, commit };
  }
  return (await git.readCommit({ ...repo.git, oid })) as unknown as { oid: string; commit: ParsedCommit };
}

/** A blob's bytes (shared: callers must not modify them). */
export async function readBlobBytes(repo: Repo, oid: string): Promise<Uint8Array> {
  const raw = repo.objects.read(oid);
  if (raw?.type === 'blob') return raw.data;
  return (await git.readBlob({ ...repo.git, oid })).blob;
}

/** Whether the object exists (`git.readObject({ format: 'deflated' })` succeeding). */
export async function hasObject(repo: Repo, oid: string): Promise<boolean> {
  if (repo.objects.read(oid)) return true;
  try {
    await git.readObject({ ...repo.git, oid, format: 'deflated' });
    return true;
  } catch {
    return false;
  }
}
