/** The git CLI as both git bench suites run it (no user config, fixed identity, C locale), and what they share. */
import { execFile } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The environment of every git CLI command: no user/system config, fixed identity, C locale. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/nonexistent-home',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Bench User',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'Bench User',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    GIT_AUTHOR_DATE: '2024-01-15T12:00:00+00:00',
    GIT_COMMITTER_DATE: '2024-01-15T12:00:00+00:00',
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    ...extra,
  };
}

/** `git <args>` in `cwd`: stdout as a Buffer (so the figure is git's, not our decoding's). */
export function gitRaw(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<Buffer> {
  return new Promise((done, fail) => {
    execFile('git', args, { cwd, env: gitEnv(env), encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${error.message}; ${stderr.toString().slice(0, 500)}`));
      else done(stdout);
    });
  });
}

export const git = async (cwd: string, args: readonly string[], env?: Record<string, string>) =>
  (await gitRaw(cwd, args, env)).toString('utf8');

/** mulberry32: a small seeded PRNG, so the generated tree is the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The text of a tool result's text blocks, joined. */
export function textOf(res: object): string {
  const content = (res as { content?: unknown }).content as { type: string; text?: string }[] | undefined;
  return (content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
}

/**
 * Writes a generated file for commit `k`, with the mtime 2024-01-01 + k minutes (as after work done long ago): a
 * change always changes the mtime, and no entry is "racily clean" (as new as the index).
 */
export function writeDated(dir: string, path: string, text: string, k: number): void {
  const file = join(dir, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const time = new Date(Date.UTC(2024, 0, 1, 0, k));
  utimesSync(file, time, time);
}
