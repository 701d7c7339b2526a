/** The reference's own suite, ported (see ./helpers.ts): upstream `tools.test.ts`, 6.5.1–6.5.36 (the tools every client gets). */
import type { ResourceLink } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { MCP_TINY_IMAGE } from '../../../src/shared/mcpTinyImage.js';
import { createTestClock } from '../../clock.js';
import { connectCurrent, errorText, text, texts } from '../helpers.js';
import { call } from './helpers.js';

describe('tools.test.ts (61)', () => {
  it('6.5.1 echo', async () => {
    expect(await call('echo', { message: 'Hello, World!' })).toEqual({ content: [{ type: 'text', text: 'Echo: Hello, World!' }] });
  });
  it('6.5.2 echo of an empty string', async () => {
    expect(text(await call('echo', { message: '' }))).toBe('Echo: ');
  });
  it('6.5.3 echo refuses {} and {message: 123}', async () => {
    // SDK v2's text: no `MCP error -32602:` prefix, the path first.
    expect(errorText(await call('echo', {}))).toBe(
      'Input validation error: Invalid arguments for tool echo: message: Invalid input: expected string, received undefined',
    );
    expect(errorText(await call('echo', { message: 123 }))).toMatch(/message: Invalid input: expected string, received number/);
  });
  it('6.5.4 echo accepts {message: "test"}', async () => {
    expect(text(await call('echo', { message: 'test' }))).toBe('Echo: test');
  });
  it('6.5.5 echo schema requires message', async () => {
    await using pair = await connectCurrent();
    const echo = (await pair.client.listTools()).tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema.required).toEqual(['message']);
  });
  it('6.5.6 echo schema types message as a string', async () => {
    await using pair = await connectCurrent();
    const echo = (await pair.client.listTools()).tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema.properties).toEqual({ message: { type: 'string', description: 'Message to echo' } });
  });
  it('6.5.7 get-sum 5 + 3', async () => {
    expect(text(await call('get-sum', { a: 5, b: 3 }))).toBe('The sum of 5 and 3 is 8.');
  });
  it('6.5.8 get-sum -5 + 3', async () => {
    expect(text(await call('get-sum', { a: -5, b: 3 }))).toBe('The sum of -5 and 3 is -2.');
  });
  it('6.5.9 get-sum 0 + 0', async () => {
    expect(text(await call('get-sum', { a: 0, b: 0 }))).toBe('The sum of 0 and 0 is 0.');
  });
  it('6.5.10 get-sum 1.5 + 2.5', async () => {
    expect(text(await call('get-sum', { a: 1.5, b: 2.5 }))).toBe('The sum of 1.5 and 2.5 is 4.');
  });
  it('6.5.11 get-sum refuses {}, a string, a missing b', async () => {
    for (const args of [{}, { a: 'not a number', b: 5 }, { a: 5 }]) errorText(await call('get-sum', args));
  });
  it('6.5.12 get-env reports the environment', async () => {
    await using pair = await connectCurrent({ env: { TEST_VAR_EVERYTHING: 'test_value' } });
    const result = await pair.client.callTool({ name: 'get-env', arguments: {} });
    expect(JSON.parse(text(result))).toEqual({ TEST_VAR_EVERYTHING: 'test_value' });
  });
  it('6.5.13 get-env is valid JSON', async () => {
    expect(JSON.parse(text(await call('get-env')))).toBeTypeOf('object');
  });
  it('6.5.14 get-tiny-image', async () => {
    expect((await call('get-tiny-image')).content).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
  });
  it('6.5.15 get-tiny-image is a decodable PNG', async () => {
    const image = (await call('get-tiny-image')).content[1] as { data: string; mimeType: string };
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });
  it('6.5.16 get-structured-content New York', async () => {
    const result = await call('get-structured-content', { location: 'New York' });
    expect(result.structuredContent).toEqual({ temperature: 33, conditions: 'Cloudy', humidity: 82 });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });
  it('6.5.17 get-structured-content Chicago', async () => {
    expect((await call('get-structured-content', { location: 'Chicago' })).structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });
  it('6.5.18 get-structured-content Los Angeles', async () => {
    expect((await call('get-structured-content', { location: 'Los Angeles' })).structuredContent).toEqual({
      temperature: 73,
      conditions: 'Sunny / Clear',
      humidity: 48,
    });
  });
  it('6.5.19 get-annotated-message error', async () => {
    expect((await call('get-annotated-message', { messageType: 'error', includeImage: false })).content).toEqual([
      { type: 'text', text: 'Error: Operation failed', annotations: { priority: 1.0, audience: ['user', 'assistant'] } },
    ]);
  });
  it('6.5.20 get-annotated-message success', async () => {
    expect((await call('get-annotated-message', { messageType: 'success' })).content).toEqual([
      { type: 'text', text: 'Operation completed successfully', annotations: { priority: 0.7, audience: ['user'] } },
    ]);
  });
  it('6.5.21 get-annotated-message debug', async () => {
    const [block] = (await call('get-annotated-message', { messageType: 'debug' })).content as {
      text: string;
      annotations: unknown;
    }[];
    expect(block!.text).toContain('Debug:');
    expect(block!.annotations).toEqual({ priority: 0.3, audience: ['assistant'] });
  });
  it('6.5.22 get-annotated-message with an image', async () => {
    const { content } = await call('get-annotated-message', { messageType: 'success', includeImage: true });
    expect(content).toHaveLength(2);
    expect(content[1]).toEqual({
      type: 'image',
      data: MCP_TINY_IMAGE,
      mimeType: 'image/png',
      annotations: { priority: 0.5, audience: ['user'] },
    });
  });
  it('6.5.23 trigger-long-running-operation', async () => {
    const message = text(await call('trigger-long-running-operation', { duration: 0.1, steps: 2 }));
    expect(message).toBe('Long running operation completed. Duration: 0.1 seconds, Steps: 2.');
  });
  it('6.5.24 trigger-long-running-operation reports progress to the token given', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const progress: unknown[] = [];
    pair.client.setNotificationHandler('notifications/progress', (n) => void progress.push(n.params));
    await clock.run(
      pair.client.request({
        method: 'tools/call',
        params: { name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 }, _meta: { progressToken: 'token-123' } },
      }),
    );
    expect(progress).toEqual([
      { progressToken: 'token-123', progress: 1, total: 2 },
      { progressToken: 'token-123', progress: 2, total: 2 },
    ]);
  });
  it('6.5.25 get-resource-links count 3', async () => {
    const { content } = await call('get-resource-links', { count: 3 });
    expect(content).toHaveLength(4);
    expect(texts({ content: [content[0]] })[0]).toContain('3 resource links');
    for (const block of content.slice(1))
      expect(block).toMatchObject({ type: 'resource_link', uri: expect.any(String), name: expect.any(String) });
  });
  it('6.5.26 get-resource-links alternates Blob (odd) and Text (even)', async () => {
    const { content } = await call('get-resource-links', { count: 4 });
    expect(content.slice(1).map((c) => (c as ResourceLink).name)).toEqual([
      'Blob Resource 1',
      'Text Resource 2',
      'Blob Resource 3',
      'Text Resource 4',
    ]);
  });
  it('6.5.27 get-resource-links defaults to 3', async () => {
    expect((await call('get-resource-links', {})).content).toHaveLength(4);
  });
  it('6.5.28 get-resource-reference Text 1', async () => {
    const { content } = await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(content).toHaveLength(3);
    expect(texts({ content })[0]).toContain('Resource 1');
    expect(content[1]).toMatchObject({ type: 'resource', resource: { uri: 'demo://resource/dynamic/text/1' } });
    expect(texts({ content })[1]).toContain('URI');
  });
  it('6.5.29 get-resource-reference Blob 5', async () => {
    const { content } = await call('get-resource-reference', { resourceType: 'Blob', resourceId: 5 });
    expect((content[1] as { resource: { uri: string } }).resource.uri).toContain('blob/5');
  });
  it('6.5.30 get-resource-reference refuses an invalid type (here the schema does)', async () => {
    expect(errorText(await call('get-resource-reference', { resourceType: 'Invalid', resourceId: 1 }))).toBe(
      'Input validation error: Invalid arguments for tool get-resource-reference: resourceType: Invalid option: expected one of "Text"|"Blob"',
    );
  });
  it('6.5.31 get-resource-reference refuses resourceId -1, 0, 1.5', async () => {
    for (const id of [-1, 0, 1.5]) {
      expect(errorText(await call('get-resource-reference', { resourceId: id }))).toBe(
        `Invalid resourceId: ${id}. Must be a finite positive integer.`,
      );
    }
  });
  it('6.5.32 toggle-simulated-logging starts', async () => {
    expect(text(await call('toggle-simulated-logging'))).toMatch(
      /^Started simulated, random-leveled logging for session undefined at a 5 second pace/,
    );
  });
  it('6.5.33 toggle-simulated-logging twice stops', async () => {
    await using pair = await connectCurrent({ scheduler: createTestClock().scheduler }); // its ticks never come
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    expect(text(await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} }))).toBe(
      'Stopped simulated logging for session undefined',
    );
  });
  it('6.5.34 toggle-simulated-logging without a session id starts', async () => {
    expect(text(await call('toggle-simulated-logging'))).toContain('Started');
  });
  it('6.5.35 toggle-subscriber-updates starts', async () => {
    expect(text(await call('toggle-subscriber-updates'))).toBe(
      'Started simulated resource updated notifications for session undefined at a 5 second pace. Client will receive updates for any resources the it is subscribed to.',
    );
  });
  it('6.5.36 toggle-subscriber-updates twice stops', async () => {
    await using pair = await connectCurrent({ scheduler: createTestClock().scheduler }); // its ticks never come
    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(text(await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }))).toBe(
      'Stopped simulated resource updates for session undefined',
    );
  });
});
