import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnStdio } from '../src/testing/index.js';

const bin = fileURLToPath(new URL('./fixtures/cliServer.mjs', import.meta.url));
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

/** The fixture bin over raw stdio: write lines, read the JSON-RPC messages it answers, in order. */
function rawServer() {
  const child = spawn(process.execPath, [bin], { env: { PATH: process.env.PATH ?? '' }, stdio: 'pipe' });
  let out = '';
  const messages: unknown[] = [];
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
      messages.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  // An exit wakes a waiting next() too: it then fails at once instead of at the test's timeout.
  child.once('exit', () => {
    for (const wake of waiters.splice(0)) wake();
  });
  let read = 0;
  return {
    child,
    write: (line: string) => child.stdin.write(`${line}\n`),
    /** The next message, woken by stdout's data; fails if the server exits first (the bug was no answer at all). */
    async next(): Promise<unknown> {
      while (messages.length <= read) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited without answering:\n${err}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      return messages[read++];
    },
  };
}

const spawned: ReturnType<typeof rawServer>[] = [];
afterEach(() => {
  for (const s of spawned.splice(0)) s.child.kill();
});

async function initialized() {
  const server = rawServer();
  spawned.push(server);
  server.write(JSON.stringify(INIT));
  expect(await server.next()).toMatchObject({ id: 0, result: { serverInfo: { name: 'fixture' } } });
  server.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return server;
}

const error = (id: string | number | null, code: number, message: string | RegExp) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) },
});

describe('malformed input over stdio gets a JSON-RPC error', () => {
  it.each([
    ['not JSON', '{"jsonrpc":"2.0","id":1,', error(null, -32700, /^Parse error/)],
    ['a wrong jsonrpc', '{"jsonrpc":"1.0","id":2,"method":"ping"}', error(2, -32600, 'Invalid Request: jsonrpc must be "2.0"')],
    ['no jsonrpc', '{"id":"a","method":"ping"}', error('a', -32600, 'Invalid Request: jsonrpc must be "2.0"')],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":3,"method":5}', error(3, -32600, 'Invalid Request: method must be a string')],
    [
      'params that are not an object',
      '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}',
      error(4, -32600, 'Invalid Request: params must be an object'),
    ],
    [
      'params that are an array',
      '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}',
      error(5, -32600, 'Invalid Request: params must be an object'),
    ],
    [
      'an id of the wrong type',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
      error(null, -32600, 'Invalid Request: id must be a string or an integer'),
    ],
    ['a bad _meta', '{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":"x"}}', error(6, -32600, /^Invalid Request/)],
    ['a number', '42', error(null, -32600, 'Invalid Request: a message must be a JSON object')],
    ['an empty batch', '[]', error(null, -32600, 'Invalid Request: an empty batch')],
  ])('%s', async (_what, line, answer) => {
    const server = await initialized();
    server.write(line);
    expect(await server.next()).toEqual(answer);
    // The session goes on.
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }));
    expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 99, result: {} });
  });

  it('answers each entry of a batch, the bad ones with -32600', async () => {
    const server = await initialized();
    server.write(JSON.stringify([1, { jsonrpc: '2.0', id: 7, method: 'ping' }, { jsonrpc: '2.0', id: 8, method: false }]));
    const answers = [await server.next(), await server.next(), await server.next()];
    expect(answers).toContainEqual(error(null, -32600, 'Invalid Request: a message must be a JSON object'));
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(answers).toContainEqual(error(8, -32600, 'Invalid Request: method must be a string'));
  });

  it('answers -32602 with one line for tools/call params of the wrong type', async () => {
    const server = await initialized();
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'greet', arguments: 'x' } }));
    expect(await server.next()).toEqual(
      error(9, -32602, 'Invalid tools/call request: Invalid input: expected record, received string at params.arguments'),
    );
  });

  it('ignores blank lines and takes messages split across writes', async () => {
    const server = await initialized();
    server.write('');
    server.child.stdin.write('{"jsonrpc":"2.0",');
    server.write('"id":10,"method":"ping"}\r');
    expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
  });
});

describe('answers over the clients’ limit, over stdio', () => {
  it.each([
    ['over MAX_RESULT_BYTES (9 MiB)', 9 * 1024 * 1024],
    ['over the SDK client’s 10 MiB read limit (12 MiB)', 12 * 1024 * 1024],
  ])('a tool answer %s is an isError result and the connection stays', async (_what, bytes) => {
    await using proc = await spawnStdio(bin);
    const res = await proc.client.callTool({ name: 'big', arguments: { bytes } }, { timeout: 30_000 });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0]!.text).toMatch(
      /^The answer to tool big is \d+\.\d MiB \(\d+ bytes\), over the limit of 8\.0 MiB/,
    );
    expect(proc.stderr()).toMatch(/Tool big answered \d+ bytes, over the limit of 8388608/);
    expect(await proc.client.callTool({ name: 'greet', arguments: { who: 'again' } })).toEqual({
      content: [{ type: 'text', text: 'hello again' }],
    });
  });
});
