/**
 * The reference server's memory file, for a user who switches by changing only the command.
 *
 * Started without `MEMORY_FILE_PATH`, `@modelcontextprotocol/server-memory` keeps its graph beside its own code:
 * `memory.jsonl` (older versions `memory.json`) in `dist/` of its install folder, which `npx -y` puts in npm's
 * cache (`~/.npm/_npx/<hash>/node_modules/@modelcontextprotocol/server-memory/dist/`), where the next npx update
 * deletes it. When our default file does not exist yet and such a file does, we copy the newest one to our default
 * location once (the same JSONL format), byte for byte and atomically, and leave the original as it was: the
 * reference keeps working with it, and the user's graph is in a folder no update removes. Two lines on stderr say
 * where it came from and where it went.
 */
import { closeSync, constants, copyFileSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Logger } from '@mcpkit/protocol-core';
import type { PathEnvironment } from './paths.js';

const REFERENCE_PACKAGE = ['node_modules', '@modelcontextprotocol', 'server-memory', 'dist'] as const;
const REFERENCE_FILES = ['memory.jsonl', 'memory.json'] as const;
/** npx folders looked at, at most: a cache is the user's, but a huge one must not slow the start. */
const MAX_NPX_FOLDERS = 2000;

export interface ReferenceFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** npm's npx folders: `$npm_config_cache/_npx`, else `~/.npm/_npx` (`%LOCALAPPDATA%\npm-cache\_npx` on Windows). */
export function npxCacheDirs({ home, platform, env }: PathEnvironment): string[] {
  const dirs: string[] = [];
  const configured = env.npm_config_cache ?? env.NPM_CONFIG_CACHE;
  if (configured && isAbsolute(configured)) dirs.push(join(configured, '_npx'));
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : join(home, 'AppData', 'Local');
    dirs.push(join(local, 'npm-cache', '_npx'));
  } else {
    dirs.push(join(home, '.npm', '_npx'));
  }
  return [...new Set(dirs)];
}

function regularFile(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Every reference memory file in npx's cache, newest first (links are not followed). */
export function findReferenceFiles(where: PathEnvironment): ReferenceFile[] {
  const found: ReferenceFile[] = [];
  for (const npx of npxCacheDirs(where)) {
    for (const hash of listDir(npx).slice(0, MAX_NPX_FOLDERS)) {
      for (const name of REFERENCE_FILES) {
        const path = join(npx, hash, ...REFERENCE_PACKAGE, name);
        const st = regularFile(path);
        if (st) found.push({ path, ...st });
      }
    }
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/**
 * Copies `from` to `to` when `to` does not exist: into a temporary file beside `to`, synced, then linked into
 * place (so a second server starting at the same moment, or an existing file, is never overwritten). Returns
 * false when `to` appeared meanwhile. Throws on any I/O error (a full disk included), leaving `to` absent.
 */
function copyIntoPlace(from: string, to: string): boolean {
  mkdirSync(dirname(to), { recursive: true });
  const tmp = `${to}.from-reference-${process.pid}.tmp`;
  copyFileSync(from, tmp, constants.COPYFILE_EXCL);
  try {
    const copied = lstatSync(tmp).size;
    const original = lstatSync(from).size;
    if (copied !== original) throw new Error(`copied ${copied} of ${original} bytes of ${from}`);
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    syncDir(dirname(to));
    return true;
  } finally {
    unlinkSync(tmp);
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a folder for fsync; the link is durable there once written.
  }
}

/**
 * For the default memory file only: when it does not exist and the reference left a graph in npx's cache, copy
 * the newest such file to it. Logs what it did; a failed copy is logged and the server starts with an empty
 * graph, the reference's file untouched.
 */
export function adoptReferenceFile(
  defaultPath: string,
  where: PathEnvironment,
  logger: Pick<Logger, 'info' | 'warn'>,
): ReferenceFile | undefined {
  if (lstatExists(defaultPath)) return undefined;
  const [newest, ...others] = findReferenceFiles(where);
  if (!newest) return undefined;
  try {
    if (!copyIntoPlace(newest.path, defaultPath)) return undefined;
  } catch (error) {
    logger.warn(
      `found the reference server's memory file ${newest.path} but could not copy it to ${defaultPath}: ${(error as Error).message}; start with --memory-path ${newest.path} to use it where it is`,
    );
    return undefined;
  }
  logger.info(
    `found the memory file of @modelcontextprotocol/server-memory in npx's cache (${newest.path}, ${newest.size} bytes), where its next update deletes it: copied it to ${defaultPath}, which this server uses from now on; the original is unchanged`,
  );
  if (others.length > 0)
    logger.info(`${others.length} older reference memory file(s) left alone in npx's cache: ${others.map((f) => f.path).join(', ')}`);
  return newest;
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
