/**
 * A read-only revision resolver for the diff/show/blame tools: `<ref>`, `<full or short sha>`, `HEAD`,
 * `@`, followed by any of `~<n>`, `^<n>`, `^{}`, `^{commit}`, `^{tree}`. Names are looked up as refs
 * (git's order: `<n>`, `refs/<n>`, `refs/tags/<n>`, `refs/heads/<n>`, `refs/remotes/<n>`,
 * `refs/remotes/<n>/HEAD`) or object ids, never parsed as options. Nothing is ever written.
 */

import * as git from 'isomorphic-git';
import { GitError } from '../errors.js';
import { isObjectStoreError } from '../git/objectLimits.js';
import { hasObject, readObjectParsed } from '../git/objectRead.js';
import { cachedCommit, readCommitInfo } from '../log/commits.js';
import type { Repo } from '../repo.js';

/** GitPython's BadName text. */
function badName(name: string): GitError {
  return new GitError('NOT_FOUND', `Ref '${name}' did not resolve to an object`);
}

/** The reference's guard for values that start with '-' (double-wrapped, as on the wire). */
export function guardDash(value: string, what: 'target' | 'revision'): void {
  if (value.startsWith('-')) throw badName(`Invalid ${what}: '${value}' - cannot start with '-'`);
}

const REF_PREFIXES = ['', 'refs/', 'refs/tags/', 'refs/heads/', 'refs/remotes/'];

/** git's check-ref-format rules, enough to keep lookups inside refs/ and packed-refs. */
function plausibleRefName(name: string): boolean {
  if (name === '' || name === '@') return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return !name.split('/').some((part) => part.startsWith('.'));
}

async function readType(repo: Repo, oid: string): Promise<{ type: string; object: unknown }> {
  // A commit already parsed for this repository needs no read.
  const known = cachedCommit(repo, oid);
  if (known) return { type: 'commit', object: { tree: known.tree } };
  const { type, object } = await readObjectParsed(repo, oid);
  return { type, object };
}

async function lookupRef(repo: Repo, name: string): Promise<string | null> {
  if (!plausibleRefName(name)) return null;
  const candidates = name === 'HEAD' ? ['HEAD'] : [...REF_PREFIXES.map((p) => p + name), `refs/remotes/${name}/HEAD`];
  for (const ref of candidates) {
    try {
      // depth: follow symbolic refs all the way to an oid.
      return await git.resolveRef({ ...repo.git, ref });
    } catch {
      // try the next place
    }
  }
  return null;
}

async function lookupSha(repo: Repo, hex: string): Promise<string | null> {
  if (!/^[0-9a-fA-F]{4,40}$/.test(hex)) return null;
  const lower = hex.toLowerCase();
  try {
    if (lower.length === 40) {
      return (await hasObject(repo, lower)) ? lower : null;
    }
    // Packs (.idx of version 1 or 2) and loose objects searched by the engine.
    const found = repo.objects.startingWith(lower, 2);
    // None, or ambiguous (isomorphic-git's NotFoundError / AmbiguousError): not an object id.
    return found.length === 1 ? found[0]! : null;
  } catch (error) {
    if (isObjectStoreError(error)) throw error;
    return null;
  }
}

async function peel(repo: Repo, oid: string, to: 'commit' | 'tree' | 'any'): Promise<string | null> {
  let current = oid;
  for (let i = 0; i < 20; i++) {
    let found: { type: string; object: unknown };
    try {
      found = await readType(repo, current);
    } catch (error) {
      if (isObjectStoreError(error)) throw error;
      return null;
    }
    if (found.type === 'tag') {
      if (to === 'any') return current;
      current = (found.object as { object: string }).object;
      continue;
    }
    if (to === 'any' || found.type === to) return current;
    if (to === 'tree' && found.type === 'commit') return (found.object as { tree: string }).tree;
    return null;
  }
  return null;
}

async function parents(repo: Repo, oid: string): Promise<string[]> {
  return (await readCommitInfo(repo, oid)).parents;
}

export interface ResolveOptions {
  /** Try a hex name as an abbreviated object id before refs (GitPython's order); git tries refs first. */
  shaFirst?: boolean;
  /** What the result must be: a commit (default), a tree-ish (commit or tree, peeled to a tree), or anything. */
  kind?: 'commit' | 'tree';
}

/**
 * Resolves `spec` to an object id (a commit, or with kind 'tree' a tree). Throws the reference's
 * `Ref '<spec>' did not resolve to an object` when it does not resolve.
 */
export async function resolveObject(repo: Repo, spec: string, options: ResolveOptions = {}): Promise<string> {
  const m = /^(.*?)((?:[~^].*)?)$/s.exec(spec)!;
  const base = m[1] === '@' ? 'HEAD' : m[1]!;
  const suffix = m[2]!;
  let oid: string | null = null;
  if (options.shaFirst) oid = (await lookupSha(repo, base)) ?? (await lookupRef(repo, base));
  else
    oid = /^[0-9a-fA-F]{40}$/.test(base) ? await lookupSha(repo, base) : ((await lookupRef(repo, base)) ?? (await lookupSha(repo, base)));
  if (oid === null) throw badName(spec);
  const tokens = suffix.match(/~\d*|\^\{[^}]*\}|\^\d*/g) ?? [];
  if (tokens.join('') !== suffix) throw badName(spec);
  const notEnough = (token: string, n: number) =>
    badName(`Invalid revision spec '${spec}' - not enough parent commits to reach '${token}${n}'`);
  for (const token of tokens) {
    if (token.startsWith('^{')) {
      const want = token.slice(2, -1);
      const peeled = await peel(repo, oid, want === '' ? 'commit' : want === 'tree' ? 'tree' : want === 'commit' ? 'commit' : 'any');
      if (peeled === null) throw badName(spec);
      oid = peeled;
      continue;
    }
    const n = token.length > 1 ? Number(token.slice(1)) : 1;
    const commit = await peel(repo, oid, 'commit');
    if (commit === null) throw badName(spec);
    oid = commit;
    if (token[0] === '~') {
      for (let i = 0; i < n; i++) {
        const ps = await parents(repo, oid);
        if (ps.length === 0) throw notEnough('~', n);
        oid = ps[0]!;
      }
    } else if (n > 0) {
      const ps = await parents(repo, oid);
      if (ps.length < n) throw notEnough('^', n);
      oid = ps[n - 1]!;
    }
  }
  const result = await peel(repo, oid, options.kind ?? 'commit');
  if (result === null) throw badName(spec);
  return result;
}
