import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { MCP_TINY_IMAGE } from '../../src/shared/mcpTinyImage.js';
import { failure, quiet, raw, wireLegacy } from './helpers.js';

describe('legacy resources', () => {
  it('pages through all 100 resources, 10 a page, with base64 cursors', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const uris: string[] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      // A raw `resources/list`: the v2 client's listResources() walks every page itself when given no cursor.
      const page = await pair.client.request({ method: 'resources/list', params: cursor ? { cursor } : {} });
      expect(page.resources).toHaveLength(10);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      if (cursor) cursors.push(cursor);
    } while (cursor);
    expect(uris).toEqual(Array.from({ length: 100 }, (_, i) => `test://static/resource/${i + 1}`));
    expect(cursors).toEqual(['10', '20', '30', '40', '50', '60', '70', '80', '90'].map((n) => btoa(n)));
    expect(cursors[0]).toBe('MTA=');
  });

  it('lists the full objects: odd ids text, even ids base64 blobs', async () => {
    await using ours = await wireLegacy();
    const page = (await raw(ours.client, 'resources/list', { cursor: 'OTA=' })) as {
      resources: Record<string, string>[];
      nextCursor?: string;
    };
    expect(page.nextCursor).toBeUndefined();
    expect(page.resources[0]).toEqual({
      uri: 'test://static/resource/91',
      name: 'Resource 91',
      mimeType: 'text/plain',
      text: 'Resource 91: This is a plaintext resource',
    });
    expect(page.resources[9]).toEqual({
      uri: 'test://static/resource/100',
      name: 'Resource 100',
      mimeType: 'application/octet-stream',
      blob: Buffer.from('Resource 100: This is a base64 blob').toString('base64'),
    });
  });

  it('a cursor that is not a number starts over; one that is not base64 is an invalid-params error', async () => {
    await using ours = await wireLegacy();
    const first = (await raw(ours.client, 'resources/list', { cursor: btoa('abc') })) as { resources: { uri: string }[] };
    expect(first.resources[0]?.uri).toBe('test://static/resource/1');
    expect(await failure(raw(ours.client, 'resources/list', { cursor: '!!!' }))).toEqual({
      code: -32602,
      message: 'MCP error -32602: Invalid cursor: !!!',
    });
    const clamped = (await raw(ours.client, 'resources/list', { cursor: btoa('-5') })) as { resources: { uri: string }[] };
    expect(clamped.resources[0]?.uri).toBe('test://static/resource/1');
  });

  it('reads text and blob resources, with the template listed; an unknown URI is an error', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect(await pair.client.readResource({ uri: 'test://static/resource/3' })).toEqual({
      contents: [{ uri: 'test://static/resource/3', mimeType: 'text/plain', text: 'Resource 3: This is a plaintext resource' }],
    });
    expect(await pair.client.readResource({ uri: 'test://static/resource/2' })).toEqual({
      contents: [
        { uri: 'test://static/resource/2', mimeType: 'application/octet-stream', blob: 'UmVzb3VyY2UgMjogVGhpcyBpcyBhIGJhc2U2NCBibG9i' },
      ],
    });
    expect(await pair.client.listResourceTemplates()).toEqual({
      resourceTemplates: [
        { uriTemplate: 'test://static/resource/{id}', name: 'Static Resource', description: 'A static resource with a numeric ID' },
      ],
    });
    for (const uri of ['test://static/resource/101', 'test://static/resource/abc', 'test://other/1']) {
      expect(await failure(pair.client.readResource({ uri }))).toEqual({
        code: -32603,
        message: `Unknown resource: ${uri}`,
      });
    }
  });
});

describe('legacy prompts', () => {
  it('simple_prompt, complex_prompt (text, assistant reply, image) and resource_prompt', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect((await pair.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['simple_prompt', 'complex_prompt', 'resource_prompt']);
    expect(await pair.client.getPrompt({ name: 'simple_prompt' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }],
    });
    const complex = await pair.client.getPrompt({ name: 'complex_prompt', arguments: { temperature: '0.5' } });
    expect(complex.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a complex prompt with arguments: temperature=0.5, style=undefined' } },
      {
        role: 'assistant',
        content: {
          type: 'text',
          text: "I understand. You've provided a complex prompt with temperature and style arguments. How would you like me to proceed?",
        },
      },
      { role: 'user', content: { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' } },
    ]);
    expect((await pair.client.getPrompt({ name: 'resource_prompt', arguments: { resourceId: '4' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This prompt includes Resource 4. Please analyze the following resource:' } },
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: 'test://static/resource/4',
            mimeType: 'application/octet-stream',
            blob: Buffer.from('Resource 4: This is a base64 blob').toString('base64'),
          },
        },
      },
    ]);
  });

  it('refuses a bad resourceId and an unknown prompt with the reference texts', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    for (const resourceId of ['0', '101', 'abc']) {
      expect(await failure(pair.client.getPrompt({ name: 'resource_prompt', arguments: { resourceId } }))).toEqual({
        code: -32603,
        message: `Invalid resourceId: ${resourceId}. Must be a number between 1 and 100.`,
      });
    }
    expect((await failure(pair.client.getPrompt({ name: 'resource_prompt' }))).message).toBe(
      'Invalid resourceId: undefined. Must be a number between 1 and 100.',
    );
    expect(await failure(pair.client.getPrompt({ name: 'nope' }))).toEqual({
      code: -32603,
      message: 'Unknown prompt: nope',
    });
  });
});

describe('legacy completions', () => {
  it('completes prompt arguments by name and resource ids by prefix', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const prompt = (name: string, value: string) =>
      pair.client.complete({ ref: { type: 'ref/prompt', name: 'complex_prompt' }, argument: { name, value } });
    expect((await prompt('style', 'f')).completion).toEqual({ values: ['formal', 'friendly'], hasMore: false, total: 2 });
    expect((await prompt('temperature', '0')).completion).toEqual({ values: ['0', '0.5', '0.7'], hasMore: false, total: 3 });
    expect((await prompt('style', 'z')).completion).toEqual({ values: [], hasMore: false, total: 0 });
    expect((await prompt('unknown', '')).completion).toEqual({ values: [] });
    expect((await prompt('constructor', '')).completion).toEqual({ values: [] });
    const resource = await pair.client.complete({
      ref: { type: 'ref/resource', uri: 'test://static/resource/{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(resource.completion).toEqual({ values: ['1', '2', '3', '4', '5'], hasMore: false, total: 5 });
  });
});
