import { ListToolsRequestSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setRawRequestHandler } from '../src/rawHandlers.js';
import { connectInMemory, invalidArgumentsResult, sendRaw as send } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as { code: number; message: string },
  );

/**
 * v2 checks every request against the spec's schema before any handler runs, and words the refusal itself
 * (v1 had our guard reword it as one line; the v2 SDK has no public hook for that). What stays: the code
 * of a malformed `tools/call` is -32602, the message names the field, and the session goes on.
 */
describe('requests whose params do not match the method (the SDK v2 answers)', () => {
  it.each([
    [
      'tools/call',
      { name: 'count', arguments: 'x' },
      -32602,
      'Invalid tools/call request: ',
      ['params', 'arguments', 'expected record, received string'],
    ],
    [
      'tools/call',
      { name: 5, arguments: {} },
      -32602,
      'Invalid tools/call request: ',
      ['params', 'name', 'expected string, received number'],
    ],
    ['tools/call', { name: 5, arguments: 'x' }, -32602, 'Invalid tools/call request: ', ['name', 'arguments']],
    // -32603: v2 maps a failed spec-schema parse of any other method to an internal error (see README).
    ['resources/read', { uri: 5 }, -32603, '', ['params', 'uri', 'expected string, received number']],
    ['prompts/get', { name: ['a'] }, -32603, '', ['params', 'name', 'expected string, received array']],
    ['tools/list', { cursor: 5 }, -32603, '', ['params', 'cursor', 'expected string, received number']],
  ] as const)('%s with %j: %i, naming the field', async (method, params, code, prefix, mentions) => {
    await using pair = await connectInMemory(createDemoServer());
    const error = await failure(send(pair.client, method, params));
    expect(error).toMatchObject({ code, message: expect.stringMatching(new RegExp(`^${prefix}`)) });
    for (const word of mentions) expect(error?.message).toContain(word);
    // The session goes on.
    expect((await pair.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('an unknown tool is a JSON-RPC -32602 (v1: the same on McpServer)', async () => {
    await using pair = await connectInMemory(createDemoServer());
    expect(await failure(pair.client.callTool({ name: 'nope', arguments: {} }))).toMatchObject({
      code: -32602,
      message: 'Tool nope not found',
    });
  });

  it('keeps the tool-argument error of McpServer: an isError result naming the field (v2 wording)', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'count', arguments: { marker: 5 } });
    expect(res).toEqual(invalidArgumentsResult('count', 'marker: Invalid input: expected string, received number'));
  });

  it('a raw handler refuses, on one line with -32602, what passes the spec schema but not its own', async () => {
    await using pair = await connectInMemory(createDemoServer());
    pair.server.server.removeRequestHandler('tools/list');
    const strict = ListToolsRequestSchema.extend({ params: z.object({ cursor: z.string().regex(/^c\d+$/) }) });
    setRawRequestHandler(pair.server, strict as unknown as typeof ListToolsRequestSchema, () => ({ tools: [] }));
    await expect(send(pair.client, 'tools/list', { cursor: 'x' })).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid tools/list request: Invalid string: must match pattern /^c\\d+$/ at params.cursor',
    });
    expect(await send(pair.client, 'tools/list', { cursor: 'c1' })).toMatchObject({ tools: [] });
  });
});
