/**
 * What git_fetch, git_pull and git_push share: the remote's URL read from the repository's config and
 * checked, the credential callbacks, the remote-tracking refs before and after, and errors turned
 * into ToolErrors that carry no secret.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import git, { type AuthCallback, type AuthFailureCallback, Errors } from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import type { Repo } from '../repo.js';
import type { CheckedRemote, RemoteAccess } from './access.js';

/** The remote access of a session; the tools are only offered with one. */
export function requireRemote(ctx: GitContext): RemoteAccess {
  if (!ctx.remote) throw new GitError('REMOTE', 'Remote access is off: start the server with --allow-remote');
  return ctx.remote;
}

/** Names are taken as names, never as options or paths outside refs/. */
export function guardName(what: string, value: string): void {
  if (value.startsWith('-')) throw new GitError('INVALID_ARGUMENT', `Invalid ${what} '${value}': it must not start with '-'`);
  if (value === '' || /[\s~^:?*[\\\0]|\.\.|@\{|\/\/|^\/|\/$|\.lock$|\.$/.test(value)) {
    throw new GitError('INVALID_ARGUMENT', `Invalid ${what} '${value}'`);
  }
}

export interface ResolvedRemote extends CheckedRemote {
  name: string;
}

/**
 * The URL of a remote configured in the repository (`remote.<name>.pushurl` first for a push, as git
 * does), checked by the access. Only configured remotes: a URL is never taken from tool input.
 */
export async function configuredRemote(repo: Repo, access: RemoteAccess, name: string, push = false): Promise<ResolvedRemote> {
  guardName('remote name', name);
  const read = async (key: string) => (await git.getConfig({ ...repo.git, path: key })) as string | undefined;
  const url = (push ? await read(`remote.${name}.pushurl`) : undefined) ?? (await read(`remote.${name}.url`));
  if (typeof url !== 'string' || url === '') {
    const remotes = (await git.listRemotes({ ...repo.git })).map((r) => r.remote);
    throw new GitError(
      'REMOTE',
      remotes.length === 0
        ? `No remote '${name}': the repository has no remotes configured (git remote add ${name} https://…)`
        : `No remote '${name}' in the repository; configured: ${remotes.join(', ')}`,
    );
  }
  return { name, ...access.check(name, url) };
}

export interface AuthState {
  onAuth: AuthCallback;
  onAuthFailure: AuthFailureCallback;
  /** Set when the server asked for credentials: whether we had some to give. */
  asked: 'none' | 'given' | 'rejected' | undefined;
}

/** isomorphic-git callbacks offering the environment's credentials once (a second 401 cancels). */
export function authCallbacks(access: RemoteAccess, remote: ResolvedRemote): AuthState {
  const state: AuthState = {
    asked: undefined,
    onAuth: () => {
      const creds = access.credentials(remote.url);
      if (!creds) {
        state.asked = 'none';
        return { cancel: true };
      }
      state.asked = 'given';
      return { username: creds.username, password: creds.password };
    },
    onAuthFailure: () => {
      state.asked = 'rejected';
      return { cancel: true };
    },
  };
  return state;
}

/** Any failure of a network operation as a GitError whose text holds no secret. */
export function remoteError(
  access: RemoteAccess,
  error: unknown,
  remote: ResolvedRemote,
  action: string,
  auth?: AuthState,
  branch?: string | null,
): GitError {
  if (error instanceof GitError) return new GitError(error.code, access.redact(error.message));
  const where = `${action} '${remote.name}' (${remote.display})`;
  if (auth?.asked === 'none' || (error instanceof Errors.UserCanceledError && auth?.asked === undefined)) {
    return new GitError('REMOTE', `${where} failed: the server asks for credentials (HTTP 401); ${access.credentialHint}`);
  }
  if (auth?.asked === 'rejected' || error instanceof Errors.UserCanceledError) {
    return new GitError('REMOTE', `${where} failed: the server rejected the credentials from the environment (HTTP 401)`);
  }
  let message = error instanceof Error ? error.message : String(error);
  if (error instanceof Errors.HttpError) {
    const data = (error as { data?: { statusCode?: number; statusMessage?: string } }).data;
    message = `the server answered HTTP ${data?.statusCode ?? '?'} ${data?.statusMessage ?? ''}`.trim();
  } else if (error instanceof Errors.SmartHttpError) {
    message = 'the URL does not serve a git repository over smart HTTP (check the remote URL)';
  } else if (error instanceof Errors.NotFoundError) {
    message = branch ? `the remote has no branch '${branch}'` : error.message.replace(/^Could not find (.*?)\.?$/, "'$1' was not found");
  }
  // Anything else (a refused destination, a limit, a connection failure) carries its reason in its message.
  return new GitError('REMOTE', access.redact(`${where} failed: ${message}`));
}

/** `refs/remotes/<remote>/*` (and `refs/tags/*` when `tags`) → oid, to report what a fetch changed. */
export async function trackingRefs(repo: Repo, remote: string, tags: boolean): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const add = async (prefix: string) => {
    let names: string[] = [];
    try {
      names = await git.listRefs({ ...repo.git, filepath: prefix });
    } catch {
      names = [];
    }
    for (const name of names) {
      const ref = `${prefix}/${name}`;
      try {
        out.set(ref, await git.resolveRef({ ...repo.git, ref, depth: 2 }));
      } catch {
        // a dangling symbolic ref (refs/remotes/origin/HEAD to a pruned branch)
      }
    }
  };
  await add(`refs/remotes/${remote}`);
  if (tags) await add('refs/tags');
  return out;
}

export interface RefUpdate {
  /** Full ref name (`refs/remotes/origin/main`, `refs/tags/v1`). */
  ref: string;
  /** As git shows it: `main` for a remote-tracking branch of the remote, `v1` for a tag. */
  name: string;
  /** Commit before; null for a new ref. */
  old: string | null;
  /** Commit after; null for a deleted (pruned) ref. */
  new: string | null;
}

export function diffRefs(before: Map<string, string>, after: Map<string, string>, remote: string): RefUpdate[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: RefUpdate[] = [];
  for (const ref of names) {
    const old = before.get(ref) ?? null;
    const now = after.get(ref) ?? null;
    if (old === now) continue;
    const name = ref.startsWith(`refs/remotes/${remote}/`) ? ref.slice(`refs/remotes/${remote}/`.length) : ref.replace(/^refs\/tags\//, '');
    out.push({ ref, name, old, new: now });
  }
  return out;
}

async function listFiles(dir: string, out: string[] = []): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await listFiles(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch {
    return null;
  }
}

/**
 * The ref files a fetch may write (`refs/remotes/<remote>/**`, `refs/tags/**`, `packed-refs`,
 * `shallow`), saved so a failed fetch can put them back: isomorphic-git updates the remote-tracking
 * refs before it has read the pack, so a download that fails half-way (a limit, a dropped
 * connection) would leave refs to objects that were never stored. Returns the function that restores them.
 */
export async function saveFetchRefs(repo: Repo, remote: string): Promise<() => Promise<void>> {
  const dirs = [join(repo.gitdir, 'refs', 'remotes', remote), join(repo.gitdir, 'refs', 'tags')];
  const singles = [join(repo.gitdir, 'packed-refs'), join(repo.gitdir, 'shallow'), join(repo.gitdir, 'FETCH_HEAD')];
  const saved = new Map<string, Buffer | null>();
  for (const dir of dirs) for (const file of await listFiles(dir)) saved.set(file, await readOrNull(file));
  for (const file of singles) saved.set(file, await readOrNull(file));
  return async () => {
    for (const dir of dirs) {
      for (const file of await listFiles(dir)) if (!saved.has(file)) await rm(file, { force: true });
    }
    for (const [file, content] of saved) {
      if (content === null) await rm(file, { force: true });
      else if (!(await readOrNull(file))?.equals(content)) {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
  };
}
