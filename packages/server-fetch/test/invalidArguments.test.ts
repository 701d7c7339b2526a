import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createFetchServer } from '../src/server.js';

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createFetchServer());
    const res = await pair.client.callTool({ name: 'fetch', arguments: { url: 'http://127.0.0.1/', max_length: 'a' } });
    expect(res).toEqual(invalidArgumentsResult('fetch', 'Invalid input: expected number, received string at max_length'));
  });

  it('arguments that are not an object: -32602 with one line naming them', async () => {
    await using pair = await connectInMemory(createFetchServer());
    await expect(sendRaw(pair.client, 'tools/call', { name: 'fetch', arguments: 'x' })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Invalid tools/call request: Invalid input: expected record, received string at params.arguments',
    });
  });
});
