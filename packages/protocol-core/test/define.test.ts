import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools } from '../src/define.js';
import { createLogger } from '../src/logger.js';
import { connectInMemory } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';

describe('defineTool / registerTools', () => {
  it('lists tools in order with title, all four annotations and the output schema', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const { tools } = await pair.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['count', 'fail']);
    const count = tools[0]!;
    expect(count.title).toBe('Count');
    expect(count.annotations).toEqual({
      title: 'Count',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(count.outputSchema?.required).toEqual(['marker', 'calls']);
    expect(tools[1]!.outputSchema).toBeUndefined();
  });

  it('returns structuredContent with a JSON text fallback', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'count', arguments: { marker: 'a' } });
    expect(res.structuredContent).toEqual({ marker: 'a', calls: 1 });
    expect(res.content).toEqual([{ type: 'text', text: JSON.stringify({ marker: 'a', calls: 1 }, null, 2) }]);
  });

  it('turns a ToolError into an isError result with its message', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'fail', arguments: { how: 'tool' } });
    expect(res).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the widget is missing' }] });
  });

  it('hides an unexpected exception from the model and logs its stack to the logger', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
    await using pair = await connectInMemory(createDemoServer('demo', logger));
    const res = await pair.client.callTool({ name: 'fail', arguments: { how: 'crash' } });
    expect(res.isError).toBe(true);
    const text = (res.content as { text: string }[])[0]!.text;
    expect(text).toBe('Tool fail failed unexpectedly; the server log has the details.');
    expect(text).not.toContain('/etc/shadow');
    expect(lines.join('')).toContain('secret internal path /etc/shadow');
    expect(lines.join('')).toContain('demoServer.ts');
  });

  it('does not report a handler that throws because the client cancelled it as an unexpected failure', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
    const server = createMcpServer({ name: 'cancel', version: '1.0.0' });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let ended!: () => void;
    const finished = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const wait = defineTool({
      name: 'wait',
      title: 'Wait',
      description: 'Waits until cancelled, then fails the way a library does (a plain Error).',
      input: { ms: z.number() },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: async (_args, _ctx, extra) => {
        started();
        try {
          await new Promise((_, reject) => extra.mcpReq.signal.addEventListener('abort', () => reject(new Error('socket hang up'))));
        } finally {
          queueMicrotask(ended);
        }
        return { content: [] };
      },
    });
    registerTools(server, {}, [wait], { logger });
    await using pair = await connectInMemory(server);
    const controller = new AbortController();
    const call = pair.client.callTool({ name: 'wait', arguments: { ms: 1 } }, { signal: controller.signal });
    await running;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await finished;
    // The outcome is logged once, either way: wait for the cancel line, then check it was not called a failure.
    await expect.poll(() => lines.join('')).toContain('Tool wait cancelled by the client');
    expect(lines.join('')).not.toContain('failed unexpectedly');
  });

  it('hands a protocol error to the SDK, which reports it as an isError result with its message (v2: no code prefix)', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'fail', arguments: { how: 'protocol' } });
    expect(res).toEqual({ isError: true, content: [{ type: 'text', text: 'bad protocol use' }] });
  });

  it('reports invalid input as an isError result naming the field', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const res = await pair.client.callTool({ name: 'count', arguments: { marker: 1 } });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0]!.text).toBe(
      'Input validation error: Invalid arguments for tool count: marker: Invalid input: expected string, received number',
    );
  });
});

describe('prompts and resources', () => {
  it('serves a prompt with its arguments', async () => {
    await using pair = await connectInMemory(createDemoServer('x'));
    const { prompts } = await pair.client.listPrompts();
    expect(prompts[0]).toMatchObject({ name: 'greet', title: 'Greet', arguments: [{ name: 'who', required: true }] });
    const got = await pair.client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    expect(got.messages[0]!.content).toEqual({ type: 'text', text: 'Hello Ada from x' });
  });

  it('answers a failing prompt with a JSON-RPC error: a ToolError keeps its message, a crash hides internals', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
    const server = createDemoServer('x', logger);
    await using pair = await connectInMemory(server);
    await expect(pair.client.getPrompt({ name: 'broken', arguments: { how: 'tool' } })).rejects.toThrow('no such template');
    const crash = pair.client.getPrompt({ name: 'broken', arguments: { how: 'crash' } });
    await expect(crash).rejects.toThrow('Prompt broken failed unexpectedly; the server log has the details.');
    await expect(crash).rejects.not.toThrow(/shadow/);
    expect(lines.join('')).toContain('secret internal path /etc/shadow');
  });

  it('serves fixed resources and templates', async () => {
    await using pair = await connectInMemory(createDemoServer('lbl'));
    const { resources } = await pair.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['demo://label', 'demo://items/1']);
    const label = await pair.client.readResource({ uri: 'demo://label' });
    expect(label.contents[0]).toMatchObject({ text: 'lbl', mimeType: 'text/plain' });
    const item = await pair.client.readResource({ uri: 'demo://items/42' });
    expect(item.contents[0]).toMatchObject({ text: 'item 42' });
  });

  it('sends log notifications only at or above the level the client set', async () => {
    await using pair = await connectInMemory(createDemoServer());
    const got: string[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => void got.push(`${n.params.level}:${n.params.data}`));
    await pair.client.callTool({ name: 'count', arguments: { marker: 'before' } });
    await pair.client.setLoggingLevel('warning');
    await pair.client.callTool({ name: 'count', arguments: { marker: 'after' } });
    await pair.client.setLoggingLevel('debug');
    await pair.client.callTool({ name: 'count', arguments: { marker: 'again' } });
    expect(got).toEqual(['info:log:before', 'info:log:again']);
  });

  it('declares the logging capability', async () => {
    await using pair = await connectInMemory(createDemoServer());
    expect(pair.client.getServerCapabilities()?.logging).toEqual({});
  });
});
