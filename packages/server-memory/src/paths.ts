/**
 * Where the memory file lives. Resolved once at startup from configuration, never from tool input:
 * `--memory-path`, else `MEMORY_FILE_PATH`, else `memory.jsonl` in the platform's data folder.
 * `~` is expanded and a relative path is resolved against the working directory (the reference
 * resolves it against its own install folder inside the npx cache, where updates delete it).
 */
import { existsSync, renameSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import type { Logger } from '@mcpkit/protocol-core';

/** Folder name under the platform data directory. */
export const DATA_DIR_NAME = 'mcpkit-memory';
const MEMORY_FILE_NAME = 'memory.jsonl';
const LEGACY_FILE_NAME = 'memory.json';

export interface PathEnvironment {
  cwd: string;
  home: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

/** `~` and `~/x` (and `~\x` on Windows) → the home directory. `~user` is left alone. */
function expandHome(path: string, home: string, platform: NodeJS.Platform = process.platform): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || (platform === 'win32' && path.startsWith('~\\'))) return join(home, path.slice(2));
  return path;
}

/** An absolute path for a configured value: `~` expanded, relative paths against `cwd`. */
function resolveConfiguredPath(raw: string, { cwd, home, platform }: PathEnvironment): string {
  const expanded = expandHome(raw, home, platform);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The per-user data folder: `$XDG_DATA_HOME` or `~/.local/share`, `%APPDATA%`, `~/Library/Application Support`. */
export function platformDataDir({ home, platform, env }: PathEnvironment): string {
  if (platform === 'win32') return env.APPDATA && isAbsolute(env.APPDATA) ? env.APPDATA : join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  const xdg = env.XDG_DATA_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'share');
}

export function defaultMemoryPath(where: PathEnvironment): string {
  return join(platformDataDir(where), DATA_DIR_NAME, MEMORY_FILE_NAME);
}

export interface ResolvedMemoryPath {
  path: string;
  source: 'flag' | 'env' | 'default';
}

/**
 * Picks the memory file: the flag, else `MEMORY_FILE_PATH` (an empty value counts as unset, as in
 * the reference), else the default. For the default only, a legacy `memory.json` next to it with no
 * `memory.jsonl` is renamed, with the reference's two stderr lines.
 */
export function resolveMemoryPath(flag: string | undefined, where: PathEnvironment, logger?: Pick<Logger, 'info'>): ResolvedMemoryPath {
  if (flag) return { path: resolveConfiguredPath(flag, where), source: 'flag' };
  const fromEnv = where.env.MEMORY_FILE_PATH;
  if (fromEnv) return { path: resolveConfiguredPath(fromEnv, where), source: 'env' };
  const path = defaultMemoryPath(where);
  migrateLegacyFile(path, logger);
  return { path, source: 'default' };
}

/** `memory.json` → `memory.jsonl` in the same folder when only the legacy file exists (content moved byte for byte). */
export function migrateLegacyFile(jsonlPath: string, logger?: Pick<Logger, 'info'>): boolean {
  const legacy = join(resolve(jsonlPath, '..'), LEGACY_FILE_NAME);
  if (!existsSync(legacy) || existsSync(jsonlPath)) return false;
  logger?.info('DETECTED: Found legacy memory.json file, migrating to memory.jsonl for JSONL format compatibility');
  renameSync(legacy, jsonlPath);
  logger?.info('COMPLETED: Successfully migrated memory.json to memory.jsonl');
  return true;
}

/**
 * The file of one user under `--graph-per-user`: a sibling of the memory file, `<name>.user-<key><ext>`
 * (`memory.jsonl` → `memory.user-<key>.jsonl`), `key` being `userGraphKey(subject)` (hex), so it stays in the
 * memory file's folder whatever the subject.
 */
export function userMemoryPath(memoryPath: string, key: string): string {
  if (!/^[0-9a-f]+$/.test(key)) throw new Error('a user graph key is hexadecimal');
  const ext = extname(memoryPath);
  return join(dirname(memoryPath), `${basename(memoryPath, ext)}.user-${key}${ext || '.jsonl'}`);
}
