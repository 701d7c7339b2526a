// OpenTelemetry end to end: the built fixture bin, configured by OTEL_* only, exports to a real OTLP/HTTP receiver
// that the test starts on loopback (http/json, so the test can read what arrives).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { otlpAttributes as attrs, type OtlpKeyValue, otlpEnv, spawnStdio, startOtlpReceiver } from '../src/testing/index.js';
import { connectHttpV2 } from '../src/testing/v2.js';
import { openSession, raw, sessionHeaders } from './fixtures/rawHttp.js';

const bin = fileURLToPath(new URL('./fixtures/cliServer.mjs', import.meta.url));
const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

function otelEnv(receiver: { url: string }): Record<string, string> {
  return { ...otlpEnv(receiver), OTEL_SERVICE_NAME: 'fixture-under-test' };
}

function run(args: string[], env: Record<string, string>): { child: ChildProcess; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exit };
}

async function until(check: () => boolean, ms = 10_000) {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('timed out');
    },
    { timeout: ms, interval: 20 },
  );
}

describe('OpenTelemetry (OTEL_* set)', () => {
  it('over HTTP: a SERVER span per request named by the MCP conventions, the client trace continued, metrics flushed at shutdown', async () => {
    await using receiver = await startOtlpReceiver();
    const p = run(['--transport', 'http', '--port', '0'], otelEnv(receiver));
    await until(() => /listening on (http:\/\/\S+)/.test(p.stderr()));
    const endpoint = /listening on (http:\/\/\S+)/.exec(p.stderr())![1]!;
    const base = new URL(endpoint).origin;

    // 2025: a session, a call continuing the client's trace, a call whose tool fails.
    const sid = await openSession(base);
    const call = (id: number, params: object) =>
      raw(base, { headers: sessionHeaders(sid), body: { jsonrpc: '2.0', id, method: 'tools/call', params } });
    const traced = await call(2, {
      name: 'greet',
      arguments: { who: 'otel' },
      _meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`, tracestate: 'rojo=00f067aa0ba902b7' },
    });
    expect(traced.body).toContain('hello otel');
    expect((await call(3, { name: 'note', arguments: { text: 'x', fail: true } })).body).toContain('failed: x');
    const unknown = await raw(base, { headers: sessionHeaders(sid), body: { jsonrpc: '2.0', id: 4, method: 'no/such', params: {} } });
    expect(unknown.body).toContain('-32601');
    // 2026: a per-request call of the SDK's handler.
    {
      await using modern = await connectHttpV2(endpoint, { mode: '2026-07-28' });
      expect((await modern.client.listTools()).tools.length).toBeGreaterThan(0);
    }
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);

    const all = receiver.spans();
    const byName = (name: string) => all.filter((s) => s.name === name);
    const [greet] = byName('tools/call greet');
    expect(greet).toBeDefined();
    expect(greet!.kind).toBe(2); // SERVER
    expect(greet!.traceId).toBe(PARENT_TRACE);
    expect(greet!.parentSpanId).toBe(PARENT_SPAN);
    expect(attrs(greet!)).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'greet',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '2',
      'mcp.session.id': sid,
      'mcp.protocol.version': '2025-06-18',
      'network.transport': 'tcp',
    });
    expect(attrs(greet!)['error.type']).toBeUndefined();

    const [failed] = byName('tools/call note');
    expect(attrs(failed!)).toMatchObject({ 'error.type': 'tool_error', 'jsonrpc.request.id': '3' });
    expect(failed!.status?.code).toBe(2); // ERROR
    expect(failed!.traceId).not.toBe(PARENT_TRACE); // no traceparent: a trace of its own

    const [missing] = byName('no/such');
    expect(attrs(missing!)).toMatchObject({ 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(byName('initialize')).toHaveLength(1);
    const [list] = byName('tools/list');
    expect(attrs(list!)).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2026-07-28' });

    const m = receiver.metrics();
    const durations = m.get('mcp.server.operation.duration') ?? [];
    const point = (method: string, tool?: string) =>
      durations.find((d) => attrs(d)['mcp.method.name'] === method && attrs(d)['gen_ai.tool.name'] === tool);
    expect(Number(point('tools/call', 'greet')?.count)).toBe(1);
    expect(attrs(point('tools/call', 'note')!)['error.type']).toBe('tool_error');
    expect(point('_OTHER')).toBeDefined(); // an unknown method is not a label of its own
    expect(m.has('mcpkit.server.sessions')).toBe(true);
    expect(m.has('mcpkit.server.listen_streams')).toBe(true);
    const [resource] = (receiver.posts('/v1/traces')[0] as { resourceSpans: { resource: { attributes: OtlpKeyValue[] } }[] }).resourceSpans;
    expect(attrs(resource!.resource)).toMatchObject({ 'service.name': 'fixture-under-test', 'service.version': '9.9.9' });
  });

  it('over stdio: spans with network.transport pipe, exported when stdin closes', async () => {
    await using receiver = await startOtlpReceiver();
    {
      await using proc = await spawnStdio(bin, { env: otelEnv(receiver) });
      await proc.client.callTool({ name: 'greet', arguments: { who: 'pipe' } });
    }
    await until(() => receiver.posts('/v1/traces').length > 0);
    const [greet] = receiver.spans().filter((s) => s.name === 'tools/call greet');
    expect(attrs(greet!)).toMatchObject({ 'network.transport': 'pipe', 'gen_ai.tool.name': 'greet' });
  });

  it('warns about a protocol it cannot export with, and serves anyway', async () => {
    await using receiver = await startOtlpReceiver();
    await using proc = await spawnStdio(bin, { env: { ...otelEnv(receiver), OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } });
    expect((await proc.client.callTool({ name: 'greet', arguments: { who: 'x' } })).content).toEqual([{ type: 'text', text: 'hello x' }]);
    expect(proc.stderr()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json)');
  });
});

describe('--log-format json', () => {
  it('writes one JSON object per line, and a line logged inside a request carries its request id', async () => {
    const p = run(['--transport', 'http', '--port', '0', '--log-format', 'json'], {});
    await until(() => p.stderr().includes('listening on'));
    const base = new URL(/listening on (http:\/\/\S+)/.exec(p.stderr())![1]!).origin;
    const sid = await openSession(base);
    const res = await raw(base, {
      headers: { ...sessionHeaders(sid), 'X-Request-Id': 'proxy-abc.1' },
      body: { jsonrpc: '2.0', id: 'call-7', method: 'tools/call', params: { name: 'note', arguments: { text: 'inside' } } },
    });
    expect(res.headers['x-request-id']).toBe('proxy-abc.1');
    await until(() => p.stderr().includes('note: inside'));
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    const lines = p.stderr().trim().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const r of records) expect(Object.keys(r).slice(0, 4)).toEqual(['time', 'level', 'name', 'msg']);
    expect(records.find((r) => r.msg === 'note: inside')).toMatchObject({
      level: 'info',
      name: 'mcp-server-fixture',
      requestId: 'call-7',
      method: 'tools/call',
      httpRequestId: 'proxy-abc.1',
      sessionId: sid,
    });
    expect(records.find((r) => String(r.msg).includes('listening on'))?.requestId).toBeUndefined();
  });

  it('over stdio too; the default text format keeps its lines as they were (no request scope, no cost)', async () => {
    {
      await using proc = await spawnStdio(bin, { args: ['--log-format', 'json'] });
      await proc.client.callTool({ name: 'note', arguments: { text: 'piped' } });
      await until(() => proc.stderr().includes('note: piped'));
      const line = proc
        .stderr()
        .split('\n')
        .find((l) => l.includes('note: piped'))!;
      expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'note: piped', method: 'tools/call', requestId: expect.any(Number) });
    }
    await using proc = await spawnStdio(bin, {});
    await proc.client.callTool({ name: 'note', arguments: { text: 'plain' } });
    await until(() => proc.stderr().includes('note: plain'));
    expect(proc.stderr()).toContain('[mcp-server-fixture] info: note: plain\n');
  });
});
