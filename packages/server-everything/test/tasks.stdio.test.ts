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
interface Answer {
  result?: Record<string, unknown>;
  error?: { code: number; data?: unknown };
}
/** The requests sent and not answered yet, by id: each answer line resolves its request (the test's timeout bounds the wait). */
const pending = new Map<number, (answer: Answer) => void>();
let nextId = 1;

function request(method: string, params: Record<string, unknown>, optIn = true) {
  const id = nextId++;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'stdio-tasks', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': optIn ? { extensions: { [TASKS]: {} } } : {},
  };
  const answered = new Promise<Answer>((resolve) => pending.set(id, resolve));
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
  return answered;
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
      if (typeof message.id !== 'number') continue;
      pending.get(message.id)?.(message);
      pending.delete(message.id);
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
