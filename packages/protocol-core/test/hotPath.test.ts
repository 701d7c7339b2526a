/**
 * The runner's per-message fast paths (issue 18's performance pass) must answer exactly what the schemas
 * they skip would: a well-formed message passes untouched, anything the schema refuses is still refused.
 * And the stdio transport's coalesced writes: one `writev` per turn, `send()` resolved once written.
 */
import { PassThrough, Writable } from 'node:stream';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asObject } from '../src/objectSchema.js';
import { checkMessage } from '../src/runner/jsonRpcCheck.js';
import { paramsProblem } from '../src/runner/paramsCheck.js';
import { JsonRpcStdioTransport } from '../src/runner/stdioTransport.js';

const request = (method: string, params?: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method,
  ...(params === undefined ? {} : { params }),
  ...extra,
});

describe('checkMessage: the hand checks agree with JSONRPCMessageSchema', () => {
  it.each([
    ['a plain request', request('tools/call', { name: 'echo', arguments: { message: 'hi' } })],
    ['a request without params', request('tools/list')],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a 2026 envelope', request('tools/call', { name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })],
    ['a progress token', request('tools/call', { name: 'echo', _meta: { progressToken: 'p1' } })],
    ['a related task', request('tools/call', { name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } })],
  ])('accepts %s, as the schema does, and passes it on unchanged', (_what, value) => {
    expect(JSONRPCMessageSchema.safeParse(value).success).toBe(true);
    expect(checkMessage(value)).toEqual({ message: value });
  });

  it.each([
    ['a progress token that is not an integer', request('tools/call', { name: 'echo', _meta: { progressToken: 1.5 } })],
    ['a progress token that is an object', request('tools/call', { name: 'echo', _meta: { progressToken: {} } })],
    ['_meta that is an array', request('tools/call', { name: 'echo', _meta: [] })],
    ['a related task without a taskId', request('tools/call', { name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': {} } })],
    ['a key JSON-RPC does not define', request('tools/list', undefined, { extra: true })],
  ])('refuses %s, as the schema does', (_what, value) => {
    expect(JSONRPCMessageSchema.safeParse(value).success).toBe(false);
    expect(checkMessage(value).problem).toMatchObject({ id: 7, code: -32600 });
  });
});

describe('paramsProblem: the hand checks agree with the method schemas', () => {
  it.each([
    ['tools/call', { name: 'echo', arguments: { message: 'hi' } }],
    ['tools/call', { name: 'echo' }],
    ['tools/call', { name: 'echo', unknownKey: 1 }],
    ['tools/list', undefined],
    ['tools/list', { cursor: 'c' }],
    ['prompts/list', { _meta: { progressToken: 3 } }],
  ])('%s %j passes', (method, params) => {
    expect(paramsProblem(request(method, params) as JSONRPCMessage)).toBeUndefined();
  });

  it.each([
    ['tools/call', { name: 'echo', arguments: [1] }, 'arguments'],
    ['tools/call', { name: 5 }, 'name'],
    ['tools/call', { name: 'echo', _meta: { progressToken: 1.5 } }, 'progressToken'],
    ['tools/call', { name: 'echo', task: { ttl: 'soon' } }, 'ttl'],
    ['tools/list', { cursor: 5 }, 'cursor'],
    ['resources/list', { _meta: 'x' }, '_meta'],
  ])('%s %j is refused with -32602 naming %s', (method, params, field) => {
    const problem = paramsProblem(request(method, params) as JSONRPCMessage);
    expect(problem).toMatchObject({ id: 7, code: -32602 });
    expect(problem?.message).toContain(field);
  });
});

/** A stdout that records what each system-level write carried: `writev` batches and single writes. */
function recordingStdout() {
  const batches: string[][] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      batches.push([String(chunk)]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  return { stdout, batches };
}

describe('JsonRpcStdioTransport writes', () => {
  it('sends the messages of one turn in one batch, each on its own line, and resolves send() once written', async () => {
    const { stdout, batches } = recordingStdout();
    const transport = new JsonRpcStdioTransport(new PassThrough(), stdout);
    await transport.start();
    const sent = [1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: {} }));
    expect(batches).toEqual([]);
    await Promise.all(sent);
    expect(batches).toEqual([[1, 2, 3].map((id) => `${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`)]);
    await transport.send({ jsonrpc: '2.0', id: 4, result: {} });
    expect(batches).toHaveLength(2);
    await transport.close();
  });

  it('reads a line split across chunks and lines that share a chunk', async () => {
    const stdin = new PassThrough();
    const transport = new JsonRpcStdioTransport(stdin, recordingStdout().stdout);
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    const line = (id: number) => JSON.stringify(request('tools/list', undefined, { id }));
    stdin.write(`${line(1)}\r\n${line(2).slice(0, 10)}`);
    stdin.write(`${line(2).slice(10)}\n${line(3)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    await transport.close();
  });
});

describe('asObject', () => {
  it('builds one zod object per shape and passes a zod object through', () => {
    const shape = { who: z.string() };
    const first = asObject(shape);
    expect(asObject(shape)).toBe(first);
    expect(first.safeParse({ who: 'x' }).success).toBe(true);
    expect(asObject({ who: z.string() })).not.toBe(first);
    const object = z.object({ n: z.number() }).strict();
    expect(asObject(object)).toBe(object);
  });
});
