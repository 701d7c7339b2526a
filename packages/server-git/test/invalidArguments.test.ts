import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createGitServer());
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: 5 } });
    expect(res).toEqual(invalidArgumentsResult('git_status', 'repo_path: Invalid input: expected string, received number'));
  });

  // SDK v2 answers with its own text: the method, then zod's issues, which name the field.
  it('arguments that are not an object: -32602 naming them', async () => {
    await using pair = await connectInMemory(createGitServer());
    const error = (await sendRaw(pair.client, 'tools/call', { name: 'git_status', arguments: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code?: number; message?: string } | undefined;
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/^Invalid tools\/call request: /);
    for (const part of ['params', 'arguments', 'expected record, received string']) expect(error?.message).toContain(part);
  });
});
