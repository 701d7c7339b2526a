import { MAX_RESULT_BYTES } from '@mcpkit/protocol-core';
import { connectInMemory, invalidArgumentsResult, sendRaw } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createSequentialThinkingServer, HISTORY_URI } from '../src/server.js';

describe('the history resource over the answer limit', () => {
  it('leaves the oldest thoughts out of the read, says how many, and the session goes on', async () => {
    await using pair = await connectInMemory(createSequentialThinkingServer({ maxHistoryBytes: 16 * 1024 * 1024 }));
    const total = 100;
    for (let n = 1; n <= total; n++) {
      const res = await pair.client.callTool({
        name: 'sequentialthinking',
        arguments: { thought: `${n} ${'t'.repeat(120_000)}`, thoughtNumber: n, totalThoughts: total, nextThoughtNeeded: n < total },
      });
      expect(res.isError).toBeFalsy();
    }
    const read = await pair.client.readResource({ uri: HISTORY_URI });
    expect(Buffer.byteLength(JSON.stringify(read))).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    const history = JSON.parse((read.contents[0] as { text: string }).text);
    expect(history.omitted).toBeGreaterThan(0);
    expect(history.thoughts.length + history.omitted).toBe(total);
    expect(history.thoughts.at(-1).thoughtNumber).toBe(total);
    expect(history.dropped).toBe(0);
  });

  it('reads a small history whole, without omitted', async () => {
    await using pair = await connectInMemory(createSequentialThinkingServer());
    await pair.client.callTool({
      name: 'sequentialthinking',
      arguments: { thought: 'a', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
    });
    const history = JSON.parse(((await pair.client.readResource({ uri: HISTORY_URI })).contents[0] as { text: string }).text);
    expect(history.thoughts).toHaveLength(1);
    expect(history).not.toHaveProperty('omitted');
  });
});

describe('invalid arguments', () => {
  it('a wrong type for a named field gives one line naming it', async () => {
    await using pair = await connectInMemory(createSequentialThinkingServer());
    const res = await pair.client.callTool({
      name: 'sequentialthinking',
      arguments: { thought: 5, thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: true },
    });
    expect(res).toEqual(invalidArgumentsResult('sequentialthinking', 'thought: Invalid input: expected string, received number'));
  });

  it('arguments that are not an object: -32602 naming the field and the problem', async () => {
    await using pair = await connectInMemory(createSequentialThinkingServer());
    const refused = sendRaw(pair.client, 'tools/call', { name: 'sequentialthinking', arguments: [] });
    // SDK v2 words it (v1 + our guard: one line, `… at params.arguments`; v2: zod's list of issues, path as an array).
    await expect(refused).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Invalid tools/call request: ') });
    const { message } = (await refused.catch((e: Error) => e)) as Error;
    expect(message).toContain('expected record, received array');
    expect(message).toMatch(/params\W+arguments/);
  });
});
