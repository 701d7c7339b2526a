import { createLogger } from '@mcpkit/protocol-core';
import { connectInMemory, connectV2InMemory, sendRaw, startHttp } from '@mcpkit/protocol-core/testing';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { MCP_TINY_IMAGE } from '../../src/shared/mcpTinyImage.js';
import { failureText as failure, quiet, raw, text, until, wireLegacy } from './helpers.js';

describe('legacy tools: happy paths and error paths', () => {
  it('echo echoes; a missing message is a JSON-RPC error and the server keeps answering', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect(await pair.client.callTool({ name: 'echo', arguments: { message: 'Hello, World!' } })).toEqual({
      content: [{ type: 'text', text: 'Echo: Hello, World!' }],
    });
    expect(await failure(pair.client.callTool({ name: 'echo', arguments: {} }))).toEqual({
      code: -32603,
      message: 'Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received undefined at message',
    });
    expect(await failure(pair.client.callTool({ name: 'echo', arguments: { message: 123 } }))).toMatchObject({
      message: expect.stringContaining('expected string, received number at message'),
    });
    expect(await failure(pair.client.callTool({ name: 'no_such_tool', arguments: {} }))).toEqual({
      code: -32603,
      message: 'Unknown tool: no_such_tool',
    });
    expect(text(await pair.client.callTool({ name: 'echo', arguments: { message: '' } }))).toEqual(['Echo: ']);
  });

  it('add sums; a non-number is refused', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect(text(await pair.client.callTool({ name: 'add', arguments: { a: 5, b: 3 } }))).toEqual(['The sum of 5 and 3 is 8.']);
    expect(text(await pair.client.callTool({ name: 'add', arguments: { a: 1.5, b: 2.5 } }))).toEqual(['The sum of 1.5 and 2.5 is 4.']);
    expect((await failure(pair.client.callTool({ name: 'add', arguments: { a: 'not a number', b: 5 } }))).message).toContain(
      'expected number, received string at a',
    );
  });

  it('printEnv redacts secret-looking values; showEnvSecrets restores the reference output', async () => {
    const env = {
      HOME: '/home/ann',
      OPENAI_API_KEY: 'sk-abcdefghijklmnopqrstuvwxyz',
      GH_TOKEN: 'x',
      DATABASE_URL: 'postgres://ann:hunter2@db.internal:5432/app',
      PLAIN_URL: 'https://example.com/a@b',
      EMPTY_SECRET: '',
    };
    await using redacted = await connectInMemory(createLegacyServer({ ...quiet, env }));
    const [shown] = text(await redacted.client.callTool({ name: 'printEnv', arguments: {} }));
    expect(JSON.parse(shown!)).toEqual({
      HOME: '/home/ann',
      OPENAI_API_KEY: '[redacted]',
      GH_TOKEN: '[redacted]',
      DATABASE_URL: '[redacted]',
      PLAIN_URL: 'https://example.com/a@b',
      EMPTY_SECRET: '',
    });
    expect(shown).not.toContain('hunter2');

    await using revealed = await connectInMemory(createLegacyServer({ ...quiet, env, showEnvSecrets: true }));
    expect(text(await revealed.client.callTool({ name: 'printEnv', arguments: {} }))).toEqual([JSON.stringify(env, null, 2)]);
  });

  it('printEnv reads process.env at call time when no env is given', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    process.env.MCPKIT_LEGACY_PROBE = 'probe-value';
    try {
      const [shown] = text(await pair.client.callTool({ name: 'printEnv', arguments: {} }));
      expect(JSON.parse(shown!).MCPKIT_LEGACY_PROBE).toBe('probe-value');
    } finally {
      delete process.env.MCPKIT_LEGACY_PROBE;
    }
  });

  it('an unexpected failure is logged with its stack; the client gets a text without internals', async () => {
    const lines: string[] = [];
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      ownKeys() {
        throw new Error('secret internal detail');
      },
    });
    const logger = createLogger({ name: 'test', level: 'error', write: (line) => void lines.push(line) });
    await using pair = await connectInMemory(createLegacyServer({ ...quiet, env, logger }));
    expect(await failure(pair.client.callTool({ name: 'printEnv', arguments: {} }))).toEqual({
      code: -32603,
      message: 'Tool printEnv failed unexpectedly; the server log has the details.',
    });
    expect(lines.join('')).toContain('secret internal detail');
    expect(text(await pair.client.callTool({ name: 'echo', arguments: { message: 'still up' } }))).toEqual(['Echo: still up']);
  });

  it('getTinyImage returns the MCP logo, a 20×20 PNG, between two texts', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const result = await pair.client.callTool({ name: 'getTinyImage' });
    expect(result.content).toEqual([
      { type: 'text', text: 'This is a tiny image:' },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP tiny image.' },
    ]);
    const png = Buffer.from(MCP_TINY_IMAGE, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([20, 20]);
  });

  it('annotatedMessage annotates each message type and the optional image; an unknown type is refused', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect((await pair.client.callTool({ name: 'annotatedMessage', arguments: { messageType: 'error' } })).content).toEqual([
      { type: 'text', text: 'Error: Operation failed', annotations: { priority: 1, audience: ['user', 'assistant'] } },
    ]);
    expect((await pair.client.callTool({ name: 'annotatedMessage', arguments: { messageType: 'debug' } })).content).toEqual([
      { type: 'text', text: 'Debug: Cache hit ratio 0.95, latency 150ms', annotations: { priority: 0.3, audience: ['assistant'] } },
    ]);
    expect(
      (await pair.client.callTool({ name: 'annotatedMessage', arguments: { messageType: 'success', includeImage: true } })).content,
    ).toEqual([
      { type: 'text', text: 'Operation completed successfully', annotations: { priority: 0.7, audience: ['user'] } },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png', annotations: { priority: 0.5, audience: ['user'] } },
    ]);
    expect((await failure(pair.client.callTool({ name: 'annotatedMessage', arguments: { messageType: 'info' } }))).message).toContain(
      'Invalid option: expected one of "error"|"success"|"debug" at messageType',
    );
  });

  it('getResourceReference embeds the resource (SDK v2 drops its `name`); out-of-range and fractional ids are refused', async () => {
    await using ours = await wireLegacy();
    expect(await raw(ours.client, 'tools/call', { name: 'getResourceReference', arguments: { resourceId: 1 } })).toEqual({
      content: [
        { type: 'text', text: 'Returning resource reference for Resource 1:' },
        {
          type: 'resource',
          resource: {
            uri: 'test://static/resource/1',
            mimeType: 'text/plain',
            text: 'Resource 1: This is a plaintext resource',
          },
        },
        { type: 'text', text: 'You can access this resource using the URI: test://static/resource/1' },
      ],
    });
    const blob = await ours.client.callTool({ name: 'getResourceReference', arguments: { resourceId: 2 } });
    expect(blob.content).toContainEqual({
      type: 'resource',
      resource: {
        uri: 'test://static/resource/2',
        mimeType: 'application/octet-stream',
        blob: 'UmVzb3VyY2UgMjogVGhpcyBpcyBhIGJhc2U2NCBibG9i',
      },
    });
    expect((await failure(ours.client.callTool({ name: 'getResourceReference', arguments: { resourceId: 101 } }))).message).toContain(
      'Too big: expected number to be <=100 at resourceId',
    );
    expect((await failure(ours.client.callTool({ name: 'getResourceReference', arguments: { resourceId: 0 } }))).message).toContain(
      'Too small: expected number to be >=1 at resourceId',
    );
    expect(await failure(ours.client.callTool({ name: 'getResourceReference', arguments: { resourceId: 2.5 } }))).toEqual({
      code: -32603,
      message: 'Resource with ID 2.5 does not exist',
    });
  });

  it('getResourceLinks links the first count resources (text, blob, …); more than 10 is refused', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const result = await pair.client.callTool({ name: 'getResourceLinks', arguments: {} });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'Here are 3 resource links to resources available in this server (see full output in tool response if your client does not support resource_link yet):',
      },
      {
        type: 'resource_link',
        uri: 'test://static/resource/1',
        name: 'Resource 1',
        description: 'Resource 1: plaintext resource',
        mimeType: 'text/plain',
      },
      {
        type: 'resource_link',
        uri: 'test://static/resource/2',
        name: 'Resource 2',
        description: 'Resource 2: binary blob resource',
        mimeType: 'application/octet-stream',
      },
      {
        type: 'resource_link',
        uri: 'test://static/resource/3',
        name: 'Resource 3',
        description: 'Resource 3: plaintext resource',
        mimeType: 'text/plain',
      },
    ]);
    expect((await pair.client.callTool({ name: 'getResourceLinks', arguments: { count: 10 } })).content).toHaveLength(11);
    expect((await failure(pair.client.callTool({ name: 'getResourceLinks', arguments: { count: 11 } }))).message).toContain(
      'Too big: expected number to be <=10 at count',
    );
  });

  it('structuredContent returns the same weather, valid against its output schema; a blank location is refused', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    await pair.client.listTools(); // the client validates structuredContent against the listed outputSchema
    const weather = { temperature: 22.5, conditions: 'Partly cloudy', humidity: 65 };
    expect(await pair.client.callTool({ name: 'structuredContent', arguments: { location: 'New York' } })).toEqual({
      content: [{ type: 'text', text: JSON.stringify(weather) }],
      structuredContent: weather,
    });
    expect((await failure(pair.client.callTool({ name: 'structuredContent', arguments: { location: '   ' } }))).message).toContain(
      'Too small: expected string to have >=1 characters at location',
    );
  });

  it('a malformed tools/call (arguments not an object) is an invalid-params error before any tool runs', async () => {
    // On the wire (stdio and HTTP), the runner answers it in one line, before the SDK sees it.
    await using http = await startHttp({ createServer: () => createLegacyServer(quiet) });
    const client = await http.connect();
    for (const name of ['getTinyImage', 'listRoots', 'printEnv']) {
      expect(await failure(sendRaw(client, 'tools/call', { name, arguments: 'x' }))).toEqual({
        code: -32602,
        message: 'Invalid tools/call request: Invalid input: expected record, received string at params.arguments',
      });
    }
    expect(text(await client.callTool({ name: 'getTinyImage', arguments: { ignored: true } }))[0]).toBe('This is a tiny image:');
    // In-process (no runner), the SDK answers the same code with zod's JSON dump of the issue.
    await using ours = await wireLegacy();
    const inProcess = await failure(raw(ours.client, 'tools/call', { name: 'getTinyImage', arguments: 'x' }));
    expect(inProcess.code).toBe(-32602);
    expect(inProcess.message).toMatch(/^Invalid tools\/call request: \[/);
    expect(inProcess.message).toContain('"message": "Invalid input: expected record, received string"');
  });

  it('tools called without `arguments` get their defaults (the reference failed with "Required")', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect((await pair.client.callTool({ name: 'getResourceLinks' })).content).toHaveLength(4);
    expect(text(await pair.client.callTool({ name: 'longRunningOperation', arguments: { duration: 0 } }))).toEqual([
      'Long running operation completed. Duration: 0 seconds, Steps: 5.',
    ]);
  });
});

describe('legacy listRoots', () => {
  it('tells a client without roots that it does not support them, and is not listed for it', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    expect((await pair.client.listTools()).tools.map((t) => t.name)).not.toContain('listRoots');
    expect(text(await pair.client.callTool({ name: 'listRoots' }))).toEqual([
      "The MCP client does not support the roots protocol.\n\nThis means the server cannot access information about the client's workspace directories or file system roots.",
    ]);
  });

  it('lists the roots the client sent, and the new ones after roots/list_changed', async () => {
    let roots = [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///tmp' }];
    await using ours = await wireLegacy(
      {},
      { capabilities: { roots: { listChanged: true } }, setup: (c) => c.setRequestHandler(ListRootsRequestSchema, () => ({ roots })) },
    );
    await until(() => ours.logs.length > 0);
    expect((await ours.client.listTools()).tools.map((t) => t.name)).toContain('listRoots');
    expect(text(await ours.client.callTool({ name: 'listRoots' }))).toEqual([
      'Current MCP Roots (2 total):\n\n1. work\n   URI: file:///work\n\n2. Unnamed Root\n   URI: file:///tmp\n\n' +
        "Note: This server demonstrates the roots protocol capability but doesn't actually access files. " +
        'The roots are provided by the MCP client and can be used by servers that need file system access.',
    ]);
    roots = [];
    await ours.client.sendRootsListChanged();
    await until(() => ours.logs.length > 1);
    expect(text(await ours.client.callTool({ name: 'listRoots' }))).toEqual([
      'The client supports roots but no roots are currently configured.\n\nThis could mean:\n' +
        "1. The client hasn't provided any roots yet\n2. The client provided an empty roots list\n3. The roots configuration is still being loaded",
    ]);
  });
});

describe('legacy profile, 2026-07-28 client: tools listed for a capability', () => {
  const names = async (capabilities: ClientCapabilities) => {
    await using pair = await connectV2InMemory(() => createLegacyServer(quiet), { mode: '2026-07-28', capabilities });
    expect(pair.client.getProtocolEra()).toBe('modern');
    return (await pair.client.listTools()).tools.map((t) => t.name);
  };

  it('lists listRoots and startElicitation to a request whose _meta declares roots / elicitation, as after initialize', async () => {
    const none = await names({});
    expect(none).not.toContain('listRoots');
    expect(none).not.toContain('startElicitation');
    expect(await names({ roots: {} })).toEqual([...none, 'listRoots']);
    expect(await names({ elicitation: {} })).toEqual([...none, 'startElicitation']);
    expect(await names({ roots: {}, elicitation: {} })).toEqual([...none, 'listRoots', 'startElicitation']);
  });

  it('listRoots asks for the roots in an input_required round', async () => {
    // Each 2026-07-28 request gets a fresh server: they share the key that seals the round's state.
    const factory = () => createLegacyServer({ ...quiet, requestStateKey: 'k'.repeat(32) });
    await using pair = await connectV2InMemory(factory, { mode: '2026-07-28', capabilities: { roots: {} } });
    pair.client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    expect(text(await pair.client.callTool({ name: 'listRoots', arguments: {} }))[0]).toMatch(/^Current MCP Roots \(1 total\):/);
  });
});
