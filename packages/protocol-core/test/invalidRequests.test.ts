import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { setRawRequestHandler } from '../src/rawHandlers.js';
import { connectInMemory, invalidArgumentsResult, sendRaw as send } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';

describe('requests whose params do not match the method', () => {
  it.each([
    [
      'tools/call',
      { name: 'count', arguments: 'x' },
      'Invalid tools/call request: Invalid input: expected record, received string at params.arguments',
    ],
    [
      'tools/call',
      { name: 5, arguments: {} },
      'Invalid tools/call request: Invalid input: expected string, received number at params.name',
    ],
    ['resources/read', { uri: 5 }, 'Invalid resources/read request: Invalid input: expected string, received number at params.uri'],
    ['prompts/get', { name: ['a'] }, 'Invalid prompts/get request: Invalid input: expected string, received array at params.name'],
  ])('%s with %j: -32602, one line naming the field', async (method, params, message) => {
    await using pair = await connectInMemory(createDemoServer());
    const error = await send(pair.client, method, params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: -32602, message: `MCP error -32602: ${message}` });
    // The session goes on.
    expect((await pair.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('joins several issues on one line', async () => {
    await using pair = await connectInMemory(createDemoServer());
    await expect(send(pair.client, 'tools/call', { name: 5, arguments: 'x' })).rejects.toMatchObject({
      code: -32602,
      message:
        'MCP error -32602: Invalid tools/call request: Invalid input: expected string, received number at params.name; ' +
        'Invalid input: expected record, received string at params.arguments',
    });
  });

  it('keeps the tool-argument error of McpServer: an isError result naming the field', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'count', arguments: { marker: 5 } });
    expect(res).toEqual(invalidArgumentsResult('count', 'Invalid input: expected string, received number at marker'));
  });

  it('words a raw handler’s refusal the same way', async () => {
    await using pair = await connectInMemory(createDemoServer());
    pair.server.server.removeRequestHandler('tools/list');
    setRawRequestHandler(pair.server, ListToolsRequestSchema, () => ({ tools: [] }));
    await expect(send(pair.client, 'tools/list', { cursor: 5 })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Invalid tools/list request: Invalid input: expected string, received number at params.cursor',
    });
  });
});
