/**
 * What this host can tell about a process, to judge whether it holds a lock (`lock.ts`): whether it
 * is alive, when it started (with, on Linux, an exact identity: the boot id and its start time), and
 * its command line (whether it could be a memory server at all).
 *
 * Linux reads `/proc`; macOS and the BSDs ask `ps` (one spawn each: callers ask only about a lock
 * held for a while, and remember the answer); Windows can tell none of it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** When a process started, and where the platform has one, an exact identity. */
export interface ProcessStart {
  /** Linux: `<boot id>:<start time in clock ticks since boot>`. */
  id?: string;
  /** Ms since the epoch, within a second or two. */
  at: number;
}

/** Clock ticks per second in `/proc` (USER_HZ, 100 on every mainstream Linux architecture). */
const USER_HZ = 100;

/** A small file's text; null when it can't be read. */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Linux: start time from `/proc/<pid>/stat` (field 22) and the boot id; null when unreadable (no /proc, hidepid). */
export function linuxStart(pid: number): ProcessStart | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // Field 2 is the command name in parentheses and may hold spaces and parentheses: count from the last ')'.
  const ticks = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .at(22 - 3);
  if (!ticks || !/^\d+$/.test(ticks)) return null;
  const btime = /^btime (\d+)$/m.exec(readText('/proc/stat') ?? '')?.[1];
  const boot = readText('/proc/sys/kernel/random/boot_id')?.trim();
  const at = btime ? Number(btime) * 1000 + (Number(ticks) * 1000) / USER_HZ : Number.NaN;
  if (!Number.isFinite(at)) return null;
  return boot ? { id: `${boot}:${ticks}`, at } : { at };
}

/** Other Unixes: elapsed time from `ps -o etime=` (`[[dd-]hh:]mm:ss`, POSIX); null when `ps` fails. */
export function psStart(pid: number): ProcessStart | null {
  const out = ps('etime', pid);
  if (out === null) return null;
  const m = /^\s*(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)\s*$/.exec(out);
  if (!m) return null;
  const seconds = ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3])) * 60 + Number(m[4]);
  return { at: Date.now() - seconds * 1000 };
}

/** When process `pid` started: `/proc` on Linux, `ps` on other Unixes, unknown on Windows. */
export function processStart(pid: number, platform: NodeJS.Platform = process.platform): ProcessStart | null {
  if (platform === 'linux') {
    const start = linuxStart(pid);
    if (start) return start;
  }
  return platform === 'win32' ? null : psStart(pid);
}

/** Whether a process has this pid (one we may not signal counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `ps` with `-o <field>=` for `pid` (POSIX fields; C locale); null when it fails. */
function ps(field: string, pid: number): string | null {
  try {
    return execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch {
    return null;
  }
}

/**
 * The command line of process `pid` (its arguments; `ps` gives them joined by spaces, split back on
 * them), or null when it can't be read (Windows, `/proc` with `hidepid`, `ps` failing). Empty for a
 * kernel thread or a zombie.
 */
export function commandLine(pid: number, platform: NodeJS.Platform = process.platform): string[] | null {
  if (platform === 'win32') return null;
  if (platform === 'linux') {
    const raw = readText(`/proc/${pid}/cmdline`);
    if (raw !== null) return raw.split('\0').filter((arg) => arg !== '');
  }
  const out = ps('args', pid);
  return out === null
    ? null
    : out
        .trim()
        .split(/\s+/)
        .filter((arg) => arg !== '');
}

/** The programs a memory server runs in: a JavaScript runtime, under any file name of its own. */
const JS_RUNTIME = /^(?:node|nodejs|bun|deno)(?:[\d.-]*)(?:\.exe)?$/i;

/**
 * Whether a process with this command line could be a memory server (of any version): it mentions
 * `memory` (`mcp-server-memory`, `@mcpkit/server-memory`, a path or bundle named so, `--memory-path`),
 * or it is a JavaScript runtime, which could be running one from a file named anything. An init
 * (`/sbin/init`, `systemd`, a container's entry point), a shell or an editor is not one.
 */
export function mayBeMemoryServer(args: readonly string[]): boolean {
  const program = args[0];
  if (program === undefined) return false;
  return JS_RUNTIME.test(basename(program)) || args.some((arg) => /memory/i.test(arg));
}
