import { ProtocolError } from '@modelcontextprotocol/client';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createMcpServer,
  definePrompt,
  defineResource,
  defineTool,
  registerPrompts,
  registerResources,
  registerTools,
} from '../src/define.js';
import { createLogger } from '../src/logger.js';
import { setRawRequestHandler } from '../src/rawHandlers.js';
import { textResult } from '../src/results.js';
import { fitCount, jsonBytes, jsonBytesBound, MAX_RESULT_BYTES, sizeOver } from '../src/size.js';
import { connectInMemory } from '../src/testing/index.js';

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function bigServer(lines: string[] = []) {
  const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
  const server = createMcpServer({ name: 'big', version: '1.0.0', logger });
  registerTools(
    server,
    {},
    [
      defineTool({
        name: 'big',
        title: 'Big',
        description: 'Answers `bytes` bytes of text.',
        input: { bytes: z.number().int().min(0) },
        annotations: ANNOTATIONS,
        handler: ({ bytes }) => textResult('x'.repeat(bytes)),
      }),
    ],
    { logger },
  );
  // Resources and prompts log to the logger given to createMcpServer.
  registerResources(server, {}, [
    defineResource({
      name: 'big',
      title: 'Big',
      description: 'A large resource.',
      uri: 'big://{bytes}',
      read: (uri, params) => ({ contents: [{ uri: uri.href, text: 'z'.repeat(Number(params.bytes)) }] }),
    }),
  ]);
  registerPrompts(server, {}, [
    definePrompt({
      name: 'big',
      title: 'Big',
      description: 'A large prompt.',
      args: { bytes: z.string() },
      handler: ({ bytes }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'p'.repeat(Number(bytes)) } }] }),
    }),
  ]);
  return server;
}

const NINE_MIB = 9 * 1024 * 1024;

describe('answer size limit', () => {
  it('turns a tool answer over MAX_RESULT_BYTES into an isError result, logs it, and the session goes on', async () => {
    const lines: string[] = [];
    await using pair = await connectInMemory(bigServer(lines));
    const res = await pair.client.callTool({ name: 'big', arguments: { bytes: NINE_MIB } });
    expect(res.isError).toBe(true);
    const text = (res.content as { text: string }[])[0]!.text;
    expect(text).toMatch(/^The answer to tool big is 9\.0 MiB \(\d+ bytes\), over the limit of 8\.0 MiB \(8388608 bytes\)/);
    expect(text).toContain('paging or length arguments');
    expect(lines.join('')).toMatch(/Tool big answered \d+ bytes, over the limit of 8388608/);
    const next = await pair.client.callTool({ name: 'big', arguments: { bytes: 3 } });
    expect(next).toEqual({ content: [{ type: 'text', text: 'xxx' }] });
  });

  it('leaves an answer just under the limit alone', async () => {
    await using pair = await connectInMemory(bigServer());
    const res = await pair.client.callTool({ name: 'big', arguments: { bytes: MAX_RESULT_BYTES - 100 } });
    expect(res.isError).toBeUndefined();
    expect((res.content as { text: string }[])[0]!.text).toHaveLength(MAX_RESULT_BYTES - 100);
  });

  it('caps resources and prompts registered through our wrappers too, logging to the server logger', async () => {
    const lines: string[] = [];
    await using pair = await connectInMemory(bigServer(lines));
    const read = pair.client.readResource({ uri: `big://${NINE_MIB}` });
    await expect(read).rejects.toThrow(ProtocolError);
    await expect(read).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('The answer to resources/read is 9.0 MiB') });
    await expect(pair.client.getPrompt({ name: 'big', arguments: { bytes: String(NINE_MIB) } })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('The answer to prompts/get is 9.0 MiB'),
    });
    expect(lines.join('')).toContain('the answer to resources/read is');
    expect(lines.join('')).toContain('the answer to prompts/get is');
    expect((await pair.client.readResource({ uri: 'big://2' })).contents).toEqual([{ uri: 'big://2', text: 'zz' }]);
  });

  it('caps a raw handler: an isError result for tools/call, -32603 for anything else', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
    const server = createMcpServer({ name: 'raw', version: '1.0.0', logger });
    server.server.registerCapabilities({ tools: {} });
    setRawRequestHandler(server, ListToolsRequestSchema, () => ({
      tools: [{ name: 'x'.repeat(NINE_MIB), inputSchema: { type: 'object' } }],
    }));
    setRawRequestHandler(server, CallToolRequestSchema, (request) => textResult('y'.repeat(Number(request.params.arguments?.bytes))));
    await using pair = await connectInMemory(server);
    const big = await pair.client.callTool({ name: 'raw-big', arguments: { bytes: NINE_MIB } });
    expect(big.isError).toBe(true);
    expect((big.content as { text: string }[])[0]!.text).toMatch(/^The answer to tool raw-big is 9\.0 MiB/);
    expect(await pair.client.callTool({ name: 'raw-big', arguments: { bytes: 2 } })).toEqual({ content: [{ type: 'text', text: 'yy' }] });
    await expect(pair.client.listTools()).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('The answer to tools/list is 9.0 MiB'),
    });
    expect(lines.join('')).toMatch(/Tool raw-big answered \d+ bytes/);
  });
});

describe('size measures', () => {
  it('bounds the JSON size from above without serializing', () => {
    const samples: unknown[] = [
      {},
      { content: [{ type: 'text', text: 'héllo "world"\n\u0001' }], isError: true },
      ['\u{1F600}', -1.5e-300, 123456789.125, -0, null, true, { 'k"ey': ['\u001f'] }],
      { deep: { deeper: { deepest: Array.from({ length: 50 }, (_, i) => ({ i, s: 'é'.repeat(i) })) } } },
    ];
    for (const value of samples) expect(jsonBytesBound(value)).toBeGreaterThanOrEqual(jsonBytes(value));
  });

  it('serializes only what may be over the limit', () => {
    expect(sizeOver({ text: 'a'.repeat(100) })).toBeUndefined();
    expect(sizeOver({ text: 'a'.repeat(2_000_000) })).toBeUndefined();
    expect(sizeOver({ text: 'a'.repeat(9_000_000) })).toBe(9_000_011);
  });

  it('finds a count whose value fits', async () => {
    const item = 'x'.repeat(1000);
    const { count, value } = await fitCount(20_000, (n) => Array.from({ length: n }, () => item));
    expect(jsonBytes(value)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(count).toBeGreaterThan(7000);
    expect(count).toBeLessThan(8400);
  });
});
