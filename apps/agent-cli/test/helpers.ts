import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The built `mcp-agent` (run `npx tsup` first; turbo's test:stdio builds it). */
export const AGENT_BIN = resolve(here, '../dist/index.js');

/** The built bin of a workspace server package. */
export function serverBin(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), Object.values(bin)[0] as string);
}

export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed (default: closed at once). */
  input?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Called with the child as soon as it is spawned (to send signals). */
  onSpawn?: (child: ChildProcess, output: { stderr: () => string }) => void;
}

/** Run `mcp-agent` with `args`; resolves when it exits (killed after `timeoutMs`). */
export function runAgent(args: string[], options: RunOptions = {}): Promise<AgentRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child, { stderr: () => stderr });
    if (options.input !== undefined) child.stdin.write(options.input);
    child.stdin.end();
  });
}

/** A temp dir for config and data files; removed with `await using`. */
export async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-agent-test-'));
  return {
    dir,
    /** Write `{ "mcpServers": servers }` to servers.json here; returns its path. */
    async config(servers: Record<string, unknown>): Promise<string> {
      const path = join(dir, 'servers.json');
      await writeFile(path, JSON.stringify({ mcpServers: servers }, null, 2));
      return path;
    },
    async [Symbol.asyncDispose]() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A memory server entry (stdio, the built bin) writing to `file`. */
export function memoryServer(file: string) {
  return { command: process.execPath, args: [serverBin('@mcpkit/server-memory'), '--memory-path', file, '--log-level', 'warn'] };
}
