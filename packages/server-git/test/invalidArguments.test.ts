import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createGitServer());
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: 5 } });
    expect(res).toEqual(invalidArgumentsResult('git_status', 'Invalid input: expected string, received number at repo_path'));
  });

  it('arguments that are not an object: -32602 with one line naming them', async () => {
    await using pair = await connectInMemory(createGitServer());
    await expect(sendRaw(pair.client, 'tools/call', { name: 'git_status', arguments: 'x' })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Invalid tools/call request: Invalid input: expected record, received string at params.arguments',
    });
  });
});
