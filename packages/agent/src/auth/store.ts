/**
 * The token store: what a login leaves behind for one server (client registration, tokens,
 * discovery state), one JSON file per server in the store's directory (the CLI's is
 * `<configDir>/auth`), keyed by the server's name and canonical URL. The directory is 0700 and the files 0600; a write goes to a temporary
 * file that is renamed over the old one, so a crash never leaves half a file. Nothing here is
 * ever printed: the records hold secrets.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type OAuthDiscoveryState,
  resourceUrlFromServerUrl,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { errorMessage, McpError } from '../errors.js';

/** Which server a record belongs to: its name in the config and its URL. */
export interface TokenStoreKey {
  name: string;
  url: string;
}

/** What is stored for one server. */
export interface StoredServerAuth {
  /** The config name and canonical URL the record was written for (a renamed or moved server starts afresh). */
  name: string;
  url: string;
  /** The client registration (dynamic or metadata-document), stamped by the SDK with its issuer. */
  clientInformation?: StoredOAuthClientInformation;
  /** The redirect URI the registration was made with (a strict authorization server wants the same port). */
  redirectUrl?: string;
  tokens?: StoredOAuthTokens;
  /** When `tokens` were saved (ms since the epoch): with `expires_in`, when they expire. */
  tokensSavedAt?: number;
  /** The scope the authorization that brought `tokens` asked for (a step-up asks for it again, plus the new one). */
  requestedScope?: string;
  /** RFC 9728 + authorization server metadata found by the SDK, reused instead of discovering again. */
  discoveryState?: OAuthDiscoveryState;
}

export interface TokenStore {
  /** The directory holding the files (`<configDir>/auth`). */
  readonly dir: string;
  /** The file of `key` (whether or not it exists). */
  fileOf(key: TokenStoreKey): string;
  /** The record of `key`, or undefined. An unreadable or foreign file reads as undefined. */
  read(key: TokenStoreKey): Promise<StoredServerAuth | undefined>;
  /** Change the record of `key` (created when missing) and write it out atomically. */
  update(key: TokenStoreKey, change: (record: StoredServerAuth) => void): Promise<StoredServerAuth>;
  /** Delete the record of `key`; true when there was one. */
  remove(key: TokenStoreKey): Promise<boolean>;
}

/** The canonical URL of a server (RFC 8707: no fragment), the part of the key that is not its name. */
export function canonicalServerUrl(url: string): string {
  return resourceUrlFromServerUrl(url).href;
}

function fileName(key: TokenStoreKey): string {
  const url = canonicalServerUrl(key.url);
  const hash = createHash('sha256').update(`${key.name}\n${url}`).digest('hex').slice(0, 16);
  const safe = key.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);
  return `${safe}-${hash}.json`;
}

function isRecord(value: unknown, key: TokenStoreKey): value is StoredServerAuth {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<StoredServerAuth>;
  return record.name === key.name && record.url === canonicalServerUrl(key.url);
}

/**
 * A token store in `dir` (created 0700 on the first write). Reads are cached and re-read only when
 * the file's mtime changed, so the per-request `tokens()` of a connection costs one `stat`; every
 * write goes through the cache to the file.
 */
export function createTokenStore(dir: string): TokenStore {
  /** Per file: the record and the file's mtime it was read at (another process may write the file). */
  const cache = new Map<string, { record: StoredServerAuth | undefined; mtimeMs: number | undefined }>();
  /** Writes to one file, one after the other. */
  const queues = new Map<string, Promise<unknown>>();

  const fileOf = (key: TokenStoreKey) => join(dir, fileName(key));

  const mtimeOf = async (file: string): Promise<number | undefined> => {
    try {
      return (await stat(file)).mtimeMs;
    } catch {
      return undefined;
    }
  };

  /** The record, read again only when the file changed since (a login in another terminal). */
  const load = async (key: TokenStoreKey): Promise<StoredServerAuth | undefined> => {
    const file = fileOf(key);
    const mtimeMs = await mtimeOf(file);
    const cached = cache.get(file);
    if (cached && cached.mtimeMs === mtimeMs) return cached.record;
    let record: StoredServerAuth | undefined;
    try {
      const parsed: unknown = mtimeMs === undefined ? undefined : JSON.parse(await readFile(file, 'utf8'));
      record = isRecord(parsed, key) ? parsed : undefined;
    } catch {
      record = undefined;
    }
    cache.set(file, { record, mtimeMs });
    return record;
  };

  const writeFileAtomic = async (file: string, record: StoredServerAuth) => {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // mkdir leaves an existing directory's mode alone; the tokens need it private.
      await chmod(dir, 0o700);
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      // The message names the file and the system's reason, never the record.
      throw new McpError('CONFIG_ERROR', `cannot write the token file ${file}: ${errorMessage(error)}`, { cause: error });
    }
  };

  const serialize = <T>(file: string, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(file) ?? Promise.resolve();
    const next = previous.then(work, work);
    queues.set(
      file,
      next.catch(() => {}),
    );
    return next;
  };

  return {
    dir,
    fileOf,
    read: load,
    update(key, change) {
      const file = fileOf(key);
      return serialize(file, async () => {
        const current = await load(key);
        const record: StoredServerAuth = current ? structuredClone(current) : { name: key.name, url: canonicalServerUrl(key.url) };
        change(record);
        await writeFileAtomic(file, record);
        cache.set(file, { record, mtimeMs: await mtimeOf(file) });
        return record;
      });
    },
    remove(key) {
      const file = fileOf(key);
      return serialize(file, async () => {
        const existed = (await load(key)) !== undefined;
        await rm(file, { force: true });
        cache.set(file, { record: undefined, mtimeMs: undefined });
        return existed;
      });
    },
  };
}
