// The tasks extension over stdio, against the built bin (`--profile conformance`, one process = one connection):
// raw 2026-07-28 JSON-RPC lines (the SDK v2 client has no tasks API). A required-task tool called without the
// extension gets -32021 from the runner's preflight before the SDK; with it, a task whose tasks/get inlines the
// result; a cancelled task settles `cancelled`.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const TASKS = 'io.modelcontextprotocol/tasks';

let child: ChildProcessWithoutNullStreams;
const answers = new Map<number, { result?: Record<string, unknown>; error?: { code: number; data?: unknown } }>();
let nextId = 1;

function request(method: string, params: Record<string, unknown>, optIn = true) {
  const id = nextId++;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'stdio-tasks', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': optIn ? { extensions: { [TASKS]: {} } } : {},
  };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
  return new Promise<NonNullable<ReturnType<typeof answers.get>>>((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      const answer = answers.get(id);
      if (answer) return resolve(answer);
      if (Date.now() - started > 15_000) return reject(new Error(`no answer to ${method}`));
      setImmediate(check);
    };
    check();
  });
}

beforeAll(() => {
  child = spawn(process.execPath, [bin, '--profile', 'conformance'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = JSON.parse(line);
      if (typeof message.id === 'number') answers.set(message.id, message);
    }
  });
});
afterAll(async () => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.end();
  await exited;
});

describe('tasks extension over stdio (built bin, conformance profile)', () => {
  it('advertises the extension in server/discover', async () => {
    const { result } = await request('server/discover', {});
    expect(result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it('answers -32021 naming the extension to failing_job called without it', async () => {
    const { error } = await request('tools/call', { name: 'failing_job', arguments: {} }, false);
    expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
  });

  it('runs slow_compute inline without the extension, and as a task with it', async () => {
    const inline = await request('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, false);
    expect(inline.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Computed in 0 s' }] });
    const created = await request('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'x' } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result?.taskId as string;
    await expect.poll(async () => (await request('tasks/get', { taskId })).result?.status).toBe('completed');
    expect((await request('tasks/get', { taskId })).result?.result).toMatchObject({ content: [{ text: 'Computed x in 0 s' }] });
  });

  it('cancels a long task: empty ack, then cancelled', async () => {
    const created = await request('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } });
    const taskId = created.result?.taskId as string;
    const ack = await request('tasks/cancel', { taskId });
    expect(ack.result?.resultType).toBe('complete');
    expect((await request('tasks/get', { taskId })).result?.status).toBe('cancelled');
  });
});
