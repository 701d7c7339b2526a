import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { freePort, spawnStdio, spawnWs } from '../src/testing/index.js';
import { dripRequest, raw } from './fixtures/rawHttp.js';

const bin = fileURLToPath(new URL('./fixtures/cliServer.mjs', import.meta.url));
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function until(check: () => boolean, ms = 10_000) {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('timed out');
    },
    { timeout: ms, interval: 20 },
  );
}

/** Waits until a bin started with `--port <port>` answers `/healthz` (for a run that logs nothing to wait on). */
async function untilServing(port: number, ms = 10_000) {
  await expect
    .poll(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeout: ms, interval: 20, message: `nothing serves /healthz on port ${port}` },
    )
    .toBe(true);
}

describe('runCli', () => {
  it('serves stdio with nothing but JSON-RPC on stdout, and exits 0 when stdin closes', async () => {
    const p = run([]);
    p.child.stdin!.write(`${INIT}\n`);
    await until(() => p.stdout().includes('\n'));
    p.child.stdin!.end();
    expect(await p.exit).toEqual({ code: 0, signal: null });
    for (const line of p.stdout().trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(p.stdout().trim())).toMatchObject({ id: 1, result: { serverInfo: { name: 'fixture', version: '9.9.9' } } });
    expect(p.stderr()).toContain('mcp-server-fixture 9.9.9 running on stdio');
    expect(p.stderr()).toContain('app closed');
  });

  it('exits 0 on SIGTERM, even one sent the moment it says it is running', async () => {
    // Several at once, so that some child is descheduled right after writing its "running" line:
    // its SIGTERM handler must already be in place (it once was installed a few statements later).
    const runs = Array.from({ length: 6 }, () => run([]));
    const exits = await Promise.all(
      runs.map(async (p) => {
        await until(() => p.stderr().includes('running on stdio'));
        p.child.kill('SIGTERM');
        return p.exit;
      }),
    );
    expect(exits).toEqual(runs.map(() => ({ code: 0, signal: null })));
  });

  it('works with a real client and passes config down', async () => {
    await using proc = await spawnStdio(bin, { args: ['--greeting', 'ahoy'] });
    const res = await proc.client.callTool({ name: 'greet', arguments: { who: 'you' } });
    expect(res.content).toEqual([{ type: 'text', text: 'ahoy you' }]);
  });

  it.each([
    [['--port', 'eighty'], 'mcp-server-fixture: invalid value for --port: "eighty" is not a whole number'],
    [['--transport', 'websocket'], 'mcp-server-fixture: invalid value for --transport: "websocket" is not one of stdio, http, sse, ws'],
    [
      ['--transport', 'ws', '--oauth-issuer', 'https://issuer.example', '--oauth-audience', 'http://127.0.0.1:3000/mcp'],
      'mcp-server-fixture: --oauth-issuer protects the http and sse transports; over ws use --auth-token (the token is checked once, on the upgrade)',
    ],
    [['--frobnicate'], "mcp-server-fixture: Unknown option '--frobnicate'"],
    [['--greeting', 'forbidden'], 'mcp-server-fixture: greeting "forbidden" is not allowed'],
  ])('rejects bad configuration %j with exit 2 and one stderr line', async (args, message) => {
    const p = run(args);
    expect((await p.exit).code).toBe(2);
    expect(p.stdout()).toBe('');
    const lines = p.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });

  it('rejects a bad value of its own (MCP_*) variable, naming the variable', async () => {
    const p = run([], { MCP_MAX_SESSIONS: '0' });
    expect((await p.exit).code).toBe(2);
    expect(p.stderr()).toContain('invalid value for MCP_MAX_SESSIONS: 0 is out of range (1..100000)');
  });

  // Editors (VS Code, Cursor) pass their own environment on to the servers they start.
  it.each([
    [{ LOG_LEVEL: 'WARN' }, undefined],
    [{ LOG_LEVEL: 'trace' }, undefined],
    [{ PORT: '' }, undefined],
    [{ PORT: '99999' }, undefined],
    [{ MCP_TRANSPORT: 'STDIO' }, undefined],
    [{ LOG_LEVEL: 'loud' }, 'ignoring LOG_LEVEL="loud": "loud" is not one of debug, info, warn, error, silent; using the default info'],
  ])('serves stdio with the shared variables %j set as other programs set them', async (env, warning) => {
    await using proc = await spawnStdio(bin, { env });
    const res = await proc.client.callTool({ name: 'greet', arguments: { who: 'you' } });
    expect(res.content).toEqual([{ type: 'text', text: 'hello you' }]);
    if (warning) await until(() => proc.stderr().includes(warning));
  });

  it('prints --help and --version to stdout and exits 0', async () => {
    const help = run(['--help']);
    expect((await help.exit).code).toBe(0);
    expect(help.stdout()).toContain('Usage: mcp-server-fixture [options]');
    expect(help.stdout()).toContain('--greeting <value>');
    expect(help.stdout()).toContain('--transport <stdio|http|sse|ws>');
    expect(help.stdout()).toMatch(/--session-timeout <duration>\s+.*one unused since initialize closes after 60s/);
    expect(help.stdout()).toMatch(/--request-timeout <duration>\s+.*\(env MCP_REQUEST_TIMEOUT; default 60s\)/);
    expect(help.stdout()).toMatch(/^ {2}-V, --version /m);
    for (const flag of ['--version', '-V']) {
      const version = run([flag]);
      expect((await version.exit).code).toBe(0);
      expect(version.stdout()).toBe('9.9.9\n');
    }
  });

  it('--stateless prints nothing at --log-level silent, and only logger lines at debug (an SDK console note goes through the logger)', async () => {
    const port = await freePort();
    const silent = run(['--transport', 'http', '--stateless', '--port', String(port), '--log-level', 'silent']);
    onTestFinished(() => void silent.child.kill('SIGKILL'));
    await untilServing(port);
    silent.child.kill('SIGTERM');
    expect((await silent.exit).code).toBe(0);
    expect(silent.stderr()).toBe('');

    const debug = run(['--transport', 'http', '--stateless', '--port', '0', '--log-level', 'debug']);

    onTestFinished(() => void debug.child.kill('SIGKILL'));
    await until(() => debug.stderr().includes('listening on'));
    debug.child.kill('SIGTERM');
    expect((await debug.exit).code).toBe(0);
    // Stateless responses stream (SSE once a call notifies), so the SDK's json-mode note is not printed at all.
    expect(debug.stderr()).not.toMatch(/responseMode/);
    expect(
      debug
        .stderr()
        .split('\n')
        .every((l) => l === '' || l.startsWith('[mcp-server-fixture] ')),
    ).toBe(true);
  });

  it('logs one access line per HTTP request at info, none at warn; none over stdio', async () => {
    const info = run(['--transport', 'http', '--stateless', '--port', '0']);
    onTestFinished(() => void info.child.kill('SIGKILL'));
    await until(() => /listening on (http:\/\/\S+)/.test(info.stderr()));
    const base = /listening on (http:\/\/\S+)\/mcp/.exec(info.stderr())![1]!;
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { who: 'you' } } };
    expect((await raw(base, { body: call, headers: { accept: 'application/json, text/event-stream' } })).status).toBe(200);
    await until(() => info.stderr().includes('access: '));
    info.child.kill('SIGTERM');
    expect((await info.exit).code).toBe(0);
    expect(info.stderr()).toMatch(
      /^\[mcp-server-fixture\] info: access: POST \/mcp method=tools\/call tool=greet principal=none status=200 time=\d+ms$/m,
    );

    const port = await freePort();
    const quiet = run(['--transport', 'http', '--stateless', '--port', String(port), '--log-level', 'warn']);
    onTestFinished(() => void quiet.child.kill('SIGKILL'));
    await untilServing(port);
    const url = `http://127.0.0.1:${port}`;
    expect((await raw(url, { body: call, headers: { accept: 'application/json, text/event-stream' } })).status).toBe(200);
    quiet.child.kill('SIGTERM');
    expect((await quiet.exit).code).toBe(0);
    expect(quiet.stderr()).toBe('');

    const stdio = run([]);

    onTestFinished(() => void stdio.child.kill('SIGKILL'));
    stdio.child.stdin!.write(`${INIT}\n`);
    await until(() => stdio.stdout().includes('\n'));
    stdio.child.stdin!.end();
    expect((await stdio.exit).code).toBe(0);
    expect(stdio.stderr()).not.toContain('access: ');
  });

  it('serves HTTP on 127.0.0.1 and shuts down cleanly on SIGTERM', async () => {
    const p = run(['--transport', 'http', '--port', '0']);
    await until(() => /listening on (http:\/\/\S+)/.test(p.stderr()));
    const endpoint = /listening on (http:\/\/\S+)/.exec(p.stderr())![1]!;
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const health = await fetch(new URL('/healthz', endpoint));
    expect(health.status).toBe(200);
    p.child.kill('SIGTERM');
    expect((await p.exit).code).toBe(0);
  });

  it('serves WebSocket at /mcp to the v1 client, with --max-body capping frames, and shuts down cleanly on SIGTERM', async () => {
    await using ws = await spawnWs(bin, { args: ['--greeting', 'ahoy', '--max-body', '2kb'] });
    expect(ws.endpoint).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(ws.stderr()).toContain(`mcp-server-fixture 9.9.9 listening on ${ws.endpoint}`);
    const res = await ws.client.callTool({ name: 'greet', arguments: { who: 'you' } });
    expect(res.content).toEqual([{ type: 'text', text: 'ahoy you' }]);
    const closed = new Promise<void>((resolve) => {
      ws.client.onclose = resolve;
    });
    // One frame over --max-body: the server closes the connection (1009) instead of reading it.
    void ws.client.callTool({ name: 'greet', arguments: { who: 'x'.repeat(4096) } }).catch(() => {});
    await closed;
    expect(await ws.stop()).toBe(0);
    expect(ws.stderr()).toContain('app closed');
  });

  it('checks Host against the port bound with --port 0, and applies --request-timeout', async () => {
    const p = run(['--transport', 'http', '--port', '0', '--request-timeout', '300ms']);
    try {
      await until(() => /listening on (http:\/\/\S+)/.test(p.stderr()));
      const endpoint = /listening on (http:\/\/\S+)/.exec(p.stderr())![1]!;
      const { host, origin } = new URL(endpoint);
      const init = JSON.parse(INIT);
      expect((await raw(origin, { headers: { Host: host }, body: init })).status).toBe(200);
      expect((await raw(origin, { headers: { Host: '127.0.0.1:0' }, body: init })).status).toBe(403);
      const head = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
      const drip = await dripRequest(origin, head, '{"jsonrpc":"2.0"', { everyMs: 50, giveUpMs: 10_000 });
      expect(drip.closed).toBe(true);
      expect(drip.response).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      p.child.kill('SIGTERM');
      await p.exit;
    }
  });
});
