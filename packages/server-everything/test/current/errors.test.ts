/**
 * Bad input gets a clear error and the server stays up: unknown tools, prompts, resources, templates and
 * methods; invalid arguments; a dynamic resource id that is not a positive integer.
 */
import { describe, expect, it } from 'vitest';
import { connectCurrent, errorText, FULL_CAPABILITIES, text } from './helpers.js';

describe('bad input', () => {
  it('answers each mistake with a clear error and keeps serving the session', async () => {
    await using pair = await connectCurrent();
    const { client } = pair;
    const alive = async () => expect(text(await client.callTool({ name: 'echo', arguments: { message: 'alive' } }))).toBe('Echo: alive');

    // SDK v2: an unknown tool is a JSON-RPC -32602 error (SDK 1.x answered an isError result).
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'Tool nope not found',
    });
    await alive();
    expect(errorText(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 'two' } }))).toBe(
      'Input validation error: Invalid arguments for tool get-sum: b: Invalid input: expected number, received string',
    );
    expect(errorText(await client.callTool({ name: 'get-resource-links', arguments: { count: 11 } }))).toBe(
      'Input validation error: Invalid arguments for tool get-resource-links: count: Too big: expected number to be <=10',
    );
    expect(errorText(await client.callTool({ name: 'get-resource-reference', arguments: { resourceType: 'Blob', resourceId: -3 } }))).toBe(
      'Invalid resourceId: -3. Must be a finite positive integer.',
    );
    await alive();
    await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: 'args-prompt', arguments: {} })).rejects.toThrow(
      'Invalid arguments for prompt args-prompt: city: Invalid input: expected string, received undefined',
    );
    await expect(
      client.getPrompt({ name: 'resource-prompt', arguments: { resourceType: 'Blob', resourceId: '1.5' } }),
    ).rejects.toMatchObject({
      code: -32603,
      message: 'Invalid resourceId: 1.5. Must be a finite positive integer.',
    });
    await alive();
    await expect(client.readResource({ uri: 'demo://resource/static/document/nope.md' })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: 'demo://resource/dynamic/text/abc' })).rejects.toMatchObject({
      code: -32603,
      message: 'Unknown resource: demo://resource/dynamic/text/abc',
    });
    await expect(
      client.complete({ ref: { type: 'ref/resource', uri: 'demo://nope/{x}' }, argument: { name: 'x', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(client.request({ method: 'nope/nope' } as never, (await import('zod')).z.any())).rejects.toMatchObject({ code: -32601 });
    await alive();
  });

  it('ignores unknown arguments, as the SDK strips them', async () => {
    await using pair = await connectCurrent();
    expect(text(await pair.client.callTool({ name: 'echo', arguments: { message: 'x', shout: true } }))).toBe('Echo: x');
  });

  it('survives a repeated notifications/initialized without registering anything twice', async () => {
    await using pair = await connectCurrent({}, { capabilities: FULL_CAPABILITIES });
    const errors: Error[] = [];
    pair.server.server.onerror = (error) => void errors.push(error);
    const before = (await pair.client.listTools()).tools.map((t) => t.name);
    await pair.client.notification({ method: 'notifications/initialized' });
    expect((await pair.client.listTools()).tools.map((t) => t.name)).toEqual(before);
    expect(errors).toEqual([]);
  });
});
