import { createLogger } from '@mcpkit/protocol-core';
import { connectInMemory, connectV2InMemory, sendRaw, startHttp } from '@mcpkit/protocol-core/testing';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import type { Download } from '../../src/shared/download.js';
import { MCP_TINY_IMAGE } from '../../src/shared/mcpTinyImage.js';
import { createTestClock } from '../clock.js';
import { dataUri, raw, readZip, until, wireLegacy } from './helpers.js';

const quiet = { intervals: { loggingMs: 0, resourceUpdatesMs: 0 } };

/** The JSON-RPC error a call ends with (the legacy profile reports tool failures as the reference does). */
async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message: message.replace(/^MCP error -?\d+: /, '') };
  }
  throw new Error('expected the call to fail');
}

function text(result: unknown): string[] {
  return ((result as { content: unknown }).content as { type: string; text?: string }[]).map((block) => block.text ?? `<${block.type}>`);
}

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

describe('legacy longRunningOperation', () => {
  const progressOf = (received: unknown[]) =>
    received
      .filter((m): m is { params: Record<string, unknown> } => (m as { method?: string }).method === 'notifications/progress')
      .map((m) => m.params);

  it('reports progress for a numeric progress token (the SDK client’s own)', async () => {
    await using ours = await wireLegacy();
    const seen: { progress: number; total?: number }[] = [];
    const result = await ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 0.03, steps: 3 } }, undefined, {
      onprogress: (p) => void seen.push({ progress: p.progress, total: p.total }),
    });
    expect(text(result)).toEqual(['Long running operation completed. Duration: 0.03 seconds, Steps: 3.']);
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    const tokens = progressOf(ours.received).map((p) => p.progressToken);
    expect(tokens).toHaveLength(3);
    expect(typeof tokens[0]).toBe('number');
  });

  it('reports progress for a string progress token, echoing it unchanged', async () => {
    await using ours = await wireLegacy();
    await raw(ours.client, 'tools/call', {
      name: 'longRunningOperation',
      arguments: { duration: 0.02, steps: 2 },
      _meta: { progressToken: 'token-123' },
    });
    expect(progressOf(ours.received)).toEqual([
      { progress: 1, total: 2, progressToken: 'token-123' },
      { progress: 2, total: 2, progressToken: 'token-123' },
    ]);
  });

  it('sends no progress without a token, and refuses a non-number duration', async () => {
    await using ours = await wireLegacy();
    await ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 0.01, steps: 2 } });
    expect(progressOf(ours.received)).toEqual([]);
    expect((await failure(ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 'long' } }))).message).toContain(
      'expected number, received string at duration',
    );
  });

  it('stops when the client cancels the call', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ scheduler: clock.scheduler });
    const controller = new AbortController();
    const call = ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 10, steps: 1000 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress === 2) controller.abort();
      },
    });
    const rejected = expect(call).rejects.toThrow();
    await until(() => clock.pending === 1); // the first step
    await clock.advance(2 * 10);
    await rejected;
    await until(() => clock.pending === 0); // the server stopped waiting for the next step
    await clock.advance(6 * 10); // six more steps' worth
    await ours.client.ping();
    expect(progressOf(ours.received)).toHaveLength(2);
  });
});

describe('legacy zip', () => {
  it('zips data: URIs (base64 and percent-encoded) into a data-URI resource link', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const result = await pair.client.callTool({
      name: 'zip',
      arguments: {
        files: { 'hello.txt': dataUri('Hello, World!'), 'dir/ünï.txt': 'data:,a%20b%2Cc', 'big.txt': dataUri('x'.repeat(5000)) },
      },
    });
    const [link] = result.content as { type: string; uri: string; mimeType: string; name: string }[];
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'application/zip', name: 'files.zip' });
    const files = readZip(Buffer.from(link!.uri.replace('data:application/zip;base64,', ''), 'base64'));
    expect([...files.keys()]).toEqual(['hello.txt', 'dir/ünï.txt', 'big.txt']);
    expect(files.get('hello.txt')?.toString()).toBe('Hello, World!');
    expect(files.get('dir/ünï.txt')?.toString()).toBe('a b,c');
    expect(files.get('big.txt')?.toString()).toBe('x'.repeat(5000));
  });

  it('refuses http(s) without an injected downloader, other schemes always, and malformed URLs', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const zip = (url: string) => failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'a.txt': url } } }));
    expect(await zip('http://169.254.169.254/latest/meta-data/')).toEqual({
      code: -32603,
      message:
        "Error fetching file http://169.254.169.254/latest/meta-data/: this server does not fetch http:// URLs (no network policy is configured); pass the file's content as a data: URI instead",
    });
    expect((await zip('file:///etc/passwd')).message).toBe(
      'Error fetching file file:///etc/passwd: unsupported URL scheme file: (data:, http: and https: URLs are accepted)',
    );
    expect((await zip('data:text/plain;base64,@@@')).message).toBe(
      'Error fetching file data:text/plain;base64,@@@: the data: URI is not valid base64',
    );
    expect((await zip('not a url')).message).toContain('Invalid URL at files.a.txt');
  });

  it('fetches http(s) through the injected downloader, with the remaining byte budget and an abort signal', async () => {
    const calls: { url: string; maxBytes: number; signal: boolean }[] = [];
    const download: Download = async (url, { maxBytes, signal }) => {
      calls.push({ url: url.href, maxBytes, signal: signal instanceof AbortSignal });
      if (url.hostname === 'fails.example') throw new Error('refused by the network policy: private address');
      return new TextEncoder().encode(`body of ${url.pathname}`);
    };
    await using pair = await connectInMemory(createLegacyServer({ ...quiet, download }));
    const result = await pair.client.callTool({
      name: 'zip',
      arguments: { files: { 'one.txt': 'https://files.example/one', 'two.txt': dataUri('two') } },
    });
    const [link] = result.content as { uri: string }[];
    const files = readZip(Buffer.from(link!.uri.split(',')[1]!, 'base64'));
    expect(files.get('one.txt')?.toString()).toBe('body of /one');
    expect(calls).toEqual([{ url: 'https://files.example/one', maxBytes: 10 * 1024 * 1024, signal: true }]);
    expect(await failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'x.txt': 'https://fails.example/x' } } }))).toEqual({
      code: -32603,
      message: 'Error fetching file https://fails.example/x: refused by the network policy: private address',
    });
  });

  it('refuses more than 10 MiB in total and more than 1000 files', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const half = dataUri('x'.repeat(6 * 1024 * 1024));
    expect(await failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'a.txt': half, 'b.txt': half } } }))).toEqual({
      code: -32603,
      message: `Error fetching file ${half}: the files add up to more than 10485760 bytes, zip's limit`,
    });
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, 'data:,x']));
    expect((await failure(pair.client.callTool({ name: 'zip', arguments: { files: many } }))).message).toBe(
      'zip accepts at most 1000 files; 1001 were given',
    );
    expect(text(await pair.client.callTool({ name: 'echo', arguments: { message: 'still up' } }))).toEqual(['Echo: still up']);
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
