import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createFetchServer } from '../src/server.js';

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createFetchServer());
    const res = await pair.client.callTool({ name: 'fetch', arguments: { url: 'http://127.0.0.1/', max_length: 'a' } });
    expect(res).toEqual(invalidArgumentsResult('fetch', 'max_length: Invalid input: expected number, received string'));
  });

  it('arguments that are not an object: -32602 naming them and the problem', async () => {
    await using pair = await connectInMemory(createFetchServer());
    const refused = sendRaw(pair.client, 'tools/call', { name: 'fetch', arguments: 'x' });
    // SDK v2 words it (v1 + our guard: one line, `… at params.arguments`; v2: zod's list of issues, path as an array).
    await expect(refused).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Invalid tools/call request: ') });
    const { message } = (await refused.catch((e: Error) => e)) as Error;
    expect(message).toContain('expected record, received string');
    expect(message).toMatch(/params\W+arguments/);
  });
});
