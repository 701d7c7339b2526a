// Deploys that cut nothing: the built fixture bin, a call in flight (`hold`, answered when the test sends SIGUSR2),
// SIGTERM. The call's client gets its answer (both eras over HTTP, and over stdio), /readyz turns 503 while the
// listener still answers, new work gets 503 + Retry-After, a second signal exits at once.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it, vi } from 'vitest';

const bin = fileURLToPath(new URL('./fixtures/cliServer.mjs', import.meta.url));
const MODES = [
  ['2025 (legacy)', { mode: 'legacy' }],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
] as const;

interface Bin {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Bin {
  const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => err, exit };
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000) {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error('timed out');
    },
    { timeout: ms, interval: 20 },
  );
}

async function startHttp(args: string[] = []): Promise<Bin & { url: URL }> {
  const p = start(['--transport', 'http', '--port', '0', ...args]);
  await until(() => /listening on (http:\/\/\S+)/.test(p.stderr()));
  return { ...p, url: new URL(/listening on (http:\/\/\S+)/.exec(p.stderr())![1]!) };
}

const readyz = async (url: URL) => {
  const res = await fetch(new URL('/readyz', url));
  return { status: res.status, body: (await res.json()) as { status: string } };
};

async function connect(url: URL, versionNegotiation: object) {
  const client = new Client({ name: 'drain-test', version: '0.0.0' }, { versionNegotiation: versionNegotiation as never });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('draining on SIGTERM', () => {
  for (const [label, versionNegotiation] of MODES) {
    it(`lets a ${label} call in flight finish, with /readyz 503 and new requests 503 meanwhile, then exits 0`, async () => {
      const p = await startHttp();
      try {
        expect(await readyz(p.url)).toEqual({ status: 200, body: { status: 'ok' } });
        const client = await connect(p.url, versionNegotiation);
        const call = client.callTool({ name: 'hold', arguments: {} });
        await until(() => p.stderr().includes('hold: waiting'));
        p.child.kill('SIGTERM');
        await until(async () => (await readyz(p.url)).status === 503);
        expect((await readyz(p.url)).body).toMatchObject({ status: 'draining' });
        // Liveness holds: the process is up.
        expect((await fetch(new URL('/healthz', p.url))).status).toBe(200);
        const refused = await fetch(p.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '0' } },
          }),
        });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        p.child.kill('SIGUSR2');
        expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
        expect(await p.exit).toEqual({ code: 0, signal: null });
        await client.close().catch(() => {});
      } finally {
        p.child.kill('SIGKILL');
      }
    });
  }

  it('exits at once on a second signal', async () => {
    const p = await startHttp();
    try {
      const client = await connect(p.url, { mode: 'legacy' });
      // Its answer never comes: the client would wait for its own timeout (the cut this grace bounds).
      void client.callTool({ name: 'hold', arguments: {} }).catch(() => {});
      await until(() => p.stderr().includes('hold: waiting'));
      p.child.kill('SIGTERM');
      await until(async () => (await readyz(p.url)).status === 503);
      p.child.kill('SIGTERM');
      expect(await p.exit).toEqual({ code: 1, signal: null });
      expect(p.stderr()).toContain('SIGTERM again: exiting now');
      await client.close().catch(() => {});
    } finally {
      p.child.kill('SIGKILL');
    }
  });

  it('cuts a call still running when --shutdown-grace runs out, and exits 0', async () => {
    const p = await startHttp(['--shutdown-grace', '300ms']);
    try {
      const client = await connect(p.url, { mode: 'legacy' });
      // Its answer never comes: the client would wait for its own timeout (the cut this grace bounds).
      void client.callTool({ name: 'hold', arguments: {} }).catch(() => {});
      await until(() => p.stderr().includes('hold: waiting'));
      p.child.kill('SIGTERM');
      expect(await p.exit).toEqual({ code: 0, signal: null });
      expect(p.stderr()).toContain('the shutdown grace (300ms) ran out with 1 call(s) in flight');
      await client.close().catch(() => {});
    } finally {
      p.child.kill('SIGKILL');
    }
  });

  it('over stdio, answers the call in flight before exiting', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, '--log-level', 'debug'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const client = new Client({ name: 'drain-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const call = client.callTool({ name: 'hold', arguments: {} });
      await until(() => err.includes('hold: waiting'));
      const pid = transport.pid!;
      process.kill(pid, 'SIGTERM');
      await until(() => err.includes('shutting down: SIGTERM'));
      process.kill(pid, 'SIGUSR2');
      expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    } finally {
      await client.close();
    }
  });
});
