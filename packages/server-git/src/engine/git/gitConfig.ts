/**
 * Reading git config files (the repository's `.git/config` and the user's global files) for the few
 * settings this server honours: identity, `core.excludesFile`, `core.fileMode`, `core.quotePath`,
 * upstream branches. `[include]` is not followed. Keys are `section.key` or `section.subsection.key`
 * with section and key lower-cased (subsections keep their case, as in git).
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Repo } from '../repo.js';

export type GitConfig = Map<string, string[]>;

function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (!quoted && (ch === '#' || ch === ';')) break;
    if (ch === '"') {
      quoted = !quoted;
      out += pendingSpace;
      pendingSpace = '';
      continue;
    }
    if (ch === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += pendingSpace + ({ n: '\n', t: '\t', b: '\b', '"': '"', '\\': '\\' } as Record<string, string>)[next]!;
      pendingSpace = '';
      continue;
    }
    if (!quoted && (ch === ' ' || ch === '\t')) {
      if (out !== '') pendingSpace += ch;
      continue;
    }
    out += pendingSpace + ch;
    pendingSpace = '';
  }
  return out;
}

/** Parses config text. A key given without `=` is `true`. */
function parseGitConfig(text: string): GitConfig {
  const config: GitConfig = new Map();
  let section = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    // A value ending with a backslash continues on the next line.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(trimmed);
    if (header) {
      const [, name, sub] = header;
      const dot = name!.indexOf('.');
      // Old syntax [section.sub] lower-cases the subsection.
      if (sub !== undefined) section = `${name!.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}`;
      else if (dot >= 0) section = `${name!.slice(0, dot).toLowerCase()}.${name!.slice(dot + 1).toLowerCase()}`;
      else section = name!.toLowerCase();
      const rest = header[3]!.trim();
      if (rest === '' || rest.startsWith('#') || rest.startsWith(';')) continue;
      line = rest;
    }
    const kv = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!kv || section === '') continue;
    const key = `${section}.${kv[1]!.toLowerCase()}`;
    const value = kv[2] === undefined ? 'true' : unquote(kv[2]);
    const list = config.get(key);
    if (list) list.push(value);
    else config.set(key, [value]);
  }
  return config;
}

/** `Section.Sub.Key` → `section.Sub.key` (subsections keep their case). */
function normalKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

/** The last value of `key` in the first config (in order of precedence) that has it. */
export function configValue(configs: readonly GitConfig[], key: string): string | undefined {
  for (const config of configs) {
    const values = config.get(normalKey(key));
    if (values?.length) return values[values.length - 1];
  }
  return undefined;
}

/** Git's boolean values; `fallback` when unset or not a boolean. */
export function configBool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  if (['true', 'yes', 'on', '1', ''].includes(v)) return v !== '' || fallback;
  if (['false', 'no', 'off', '0'].includes(v)) return false;
  return fallback;
}

function readConfigFile(file: string): GitConfig | null {
  try {
    return parseGitConfig(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The repository's `.git/config`, parsed and memoized by the file's mtime and size. */
export function repoConfig(repo: Repo): GitConfig {
  const file = join(repo.commondir, 'config');
  let key = 'none';
  try {
    const st = statSync(file);
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {}
  const cached = repo.state.config;
  if (cached?.key === key) return cached.config;
  const config = readConfigFile(file) ?? new Map();
  repo.state.config = { key, config };
  return config;
}

export interface UserEnv {
  env: NodeJS.ProcessEnv;
  home: string;
}

/** `~` at the start of a config path, as git expands it. */
function expandHome(path: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return path;
}

/**
 * The user's global config files, highest precedence first: `$GIT_CONFIG_GLOBAL` alone when set
 * (`/dev/null` disables them); otherwise `~/.gitconfig`, then `$XDG_CONFIG_HOME/git/config` (or
 * `~/.config/git/config`). System config is not read.
 */
export function userConfigs({ env, home }: UserEnv): GitConfig[] {
  if (env.GIT_CONFIG_GLOBAL !== undefined) {
    const one = env.GIT_CONFIG_GLOBAL === '' ? null : readConfigFile(resolve(expandHome(env.GIT_CONFIG_GLOBAL, home)));
    return one ? [one] : [];
  }
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git', 'config') : join(home, '.config', 'git', 'config');
  return [readConfigFile(join(home, '.gitconfig')), readConfigFile(xdg)].filter((c): c is GitConfig => c !== null);
}

/** Repository config first, then the user's: the order in which git lets settings override. */
export function allConfigs(repo: Repo, user: UserEnv): GitConfig[] {
  return [repoConfig(repo), ...userConfigs(user)];
}

/** Where git looks for the user's global ignore file when `core.excludesFile` is unset. */
function defaultExcludesFile({ env, home }: UserEnv): string {
  return env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git', 'ignore') : join(home || homedir(), '.config', 'git', 'ignore');
}

/** `core.excludesFile` (repository, then user config), else git's default location. */
export function excludesFile(repo: Repo, user: UserEnv): string {
  const configured = configValue(allConfigs(repo, user), 'core.excludesfile');
  return configured ? resolve(repo.dir, expandHome(configured, user.home)) : defaultExcludesFile(user);
}
