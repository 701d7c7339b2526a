/**
 * Differential test: the current profile against the reference it replaces, npm
 * `@modelcontextprotocol/server-everything@2026.8.31` (a devDependency), spawned over stdio. Both get the
 * same client capabilities and the same requests; the answers must be equal apart from the differences
 * listed here, each of them deliberate (see the README).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type ClientCapabilities,
  ListRootsRequestSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DOCUMENTS } from '../../src/profiles/current/documents.js';
import { createTestClock, type TestClock } from '../clock.js';
import { connectCurrentV1, dataUri, FULL_CAPABILITIES, until } from './helpers.js';

const require = createRequire(import.meta.url);
const referenceDist = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist');

/** Our annotations that differ from the reference's, on purpose (honest hints). */
const ANNOTATION_CHANGES: Record<string, Record<string, boolean>> = {
  // It replaces the session resource of the same name: an overwrite.
  'gzip-file-as-resource': { destructiveHint: true },
};

/** A reference tool as we list it: the same, plus `annotations.title` (= its title) and our honest hints. */
function asOurs(tool: Tool): Tool {
  return toolAsV2({ ...tool, annotations: { title: tool.title, ...tool.annotations, ...ANNOTATION_CHANGES[tool.name] } });
}

interface Side {
  client: Client;
  /** Ours only: the clock its simulations run on (the reference's run on its own process's timers). */
  clock?: TestClock;
  close(): Promise<void>;
}

async function reference(capabilities: ClientCapabilities): Promise<Side> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(referenceDist, 'index.js')],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'diff', version: '0' }, { capabilities });
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  await client.connect(transport);
  // The reference registers its gated tools after `initialized`: one list_changed each (7 with full capabilities).
  const expected = capabilities === FULL_CAPABILITIES ? 7 : 1;
  await until(() => changes >= expected, 10_000, 'the reference to register its gated tools');
  return { client, close: () => client.close() };
}

async function ours(capabilities: ClientCapabilities): Promise<Side> {
  const clock = createTestClock();
  const pair = await connectCurrentV1({ scheduler: clock.scheduler }, { capabilities });
  if (capabilities.roots) pair.client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
  return {
    client: pair.client,
    clock,
    close: async () => {
      await pair[Symbol.asyncDispose]();
    },
  };
}

/**
 * What went over the wire (a JSON round trip: the in-memory transport keeps `undefined` members that JSON
 * drops), with local times (`9:37:34 AM`) in strings and base64 blobs and random UUIDs replaced.
 */
function normalize(value: unknown): unknown {
  return replaceVolatile(value === undefined ? value : JSON.parse(JSON.stringify(value)));
}

function replaceVolatile(value: unknown): unknown {
  const time = /\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?/g;
  const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
  if (typeof value === 'string') return value.replace(time, '<time>').replace(uuid, '<uuid>');
  if (Array.isArray(value)) return value.map(replaceVolatile);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === 'blob' && typeof v === 'string') {
          const decoded = Buffer.from(v, 'base64').toString('utf8');
          if (time.test(decoded)) return [k, Buffer.from(decoded.replace(time, '<time>')).toString('base64')];
        }
        return [k, replaceVolatile(v)];
      }),
    );
  }
  return value;
}

/** Rewrites zod problems from SDK 1.x's form (`<message> at <path>`, one per line) to v2's (`<path>: <message>`, comma-separated). */
function v2Problems(problems: string): string {
  return problems
    .split('\n')
    .map((line) => {
      const match = /^(.*) at (\S+)$/.exec(line);
      return match ? `${match[2]}: ${match[1]}` : line;
    })
    .join(', ');
}

/** What SDK v2 lists for the optional prompt arguments whose description SDK 1.x dropped. */
const V2_PROMPT_ARGUMENT_DESCRIPTIONS: Record<string, Record<string, string>> = { 'args-prompt': { state: 'Name of the state' } };

/**
 * The reference's answer as SDK v2 gives it: the changes v2 makes that every server on it shows, accepted as
 * listed in the README ("MCP 2026-07-28 and SDK v2: what a client sees differently"). Everything else must match.
 */
function asV2(value: unknown): unknown {
  const answer = value as { result?: Record<string, unknown>; error?: { code?: number; message: string; data?: unknown } };
  const result = answer.result as { isError?: boolean; content?: { type: string; text: string }[] } | undefined;
  const text = result?.isError ? result.content?.[0]?.text : undefined;
  if (text !== undefined) {
    // Unknown tool: a JSON-RPC error, not an `isError` result.
    if (/^MCP error -32602: Tool \S+ not found$/.test(text)) return { error: { code: -32602, message: text } };
    // Invalid arguments: no `MCP error -32602:` prefix, path first.
    const invalid = /^MCP error -32602: (Input validation error: Invalid arguments for tool \S+: )([\s\S]*)$/.exec(text);
    if (invalid) return { result: { ...result, content: [{ type: 'text', text: `${invalid[1]}${v2Problems(invalid[2]!)}` }] } };
  }
  if (answer.error) {
    // The server's own message is no longer prefixed: the client's prefix is the only one.
    let message = answer.error.message.replace(/^(MCP error -?\d+: )MCP error -?\d+: /, '$1');
    message = message.replace(
      /(Invalid arguments for prompt \S+: )(.*)$/,
      (_all, head: string, problems: string) => head + v2Problems(problems),
    );
    const missing = /^MCP error -32602: Resource (\S+) not found$/.exec(message);
    if (missing)
      return { error: { ...answer.error, message: `MCP error -32602: Resource not found: ${missing[1]}`, data: { uri: missing[1] } } };
    return { error: { ...answer.error, message } };
  }
  const prompts = (answer.result as { prompts?: { name: string; arguments?: { name: string; description?: string }[] }[] } | undefined)
    ?.prompts;
  if (prompts) {
    return {
      result: {
        ...answer.result,
        prompts: prompts.map((prompt) => ({
          ...prompt,
          ...(prompt.arguments && {
            arguments: prompt.arguments.map((arg) => {
              const description = V2_PROMPT_ARGUMENT_DESCRIPTIONS[prompt.name]?.[arg.name];
              return description ? { ...arg, description } : arg;
            }),
          }),
        })),
      },
    };
  }
  return value;
}

/** A tool as SDK v2 lists it: JSON Schema 2020-12, and no `execution` for a tool that cannot run as a task (the default). */
function toolAsV2(tool: Tool): Tool {
  const { execution, ...rest } = tool;
  const dialect = (schema: Tool['inputSchema'] | undefined) =>
    schema && schema.$schema === 'http://json-schema.org/draft-07/schema#'
      ? { ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' }
      : schema;
  return {
    ...rest,
    ...(execution && execution.taskSupport !== 'forbidden' ? { execution } : {}),
    inputSchema: dialect(tool.inputSchema)!,
    ...(tool.outputSchema ? { outputSchema: dialect(tool.outputSchema as Tool['inputSchema']) as Tool['outputSchema'] } : {}),
  };
}

/** The answer to one request, normalized; ours runs to its end on its clock (a long-running operation's steps). */
async function answer(side: Side, method: string, params: unknown): Promise<unknown> {
  try {
    const request = side.client.request({ method, params } as never, z.any());
    return { result: normalize(await (side.clock ? side.clock.run(request) : request)) };
  } catch (error) {
    const { code, message, data } = error as { code?: number; message: string; data?: unknown };
    return { error: normalize({ code, message, data }) };
  }
}

describe('differential: current profile vs @modelcontextprotocol/server-everything@2026.8.31', () => {
  let ref: Side;
  let us: Side;
  beforeAll(async () => {
    [ref, us] = await Promise.all([reference(FULL_CAPABILITIES), ours(FULL_CAPABILITIES)]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([ref?.close(), us?.close()]);
  });

  it('has the same serverInfo, capabilities and instructions', () => {
    expect(us.client.getServerVersion()).toEqual(ref.client.getServerVersion());
    expect(us.client.getServerCapabilities()).toEqual(ref.client.getServerCapabilities());
    expect(us.client.getInstructions()).toEqual(ref.client.getInstructions());
    expect(us.client.getInstructions()).toMatch(/^# Everything Server – Server Instructions\n/);
  });

  it('lists the same tools (full client capabilities, after the gated registrations), apart from annotations we add', async () => {
    const [theirs, mine] = await Promise.all([ref.client.listTools(), us.client.listTools()]);
    expect(theirs.tools).toHaveLength(19);
    expect(mine.tools.map((t) => t.name)).toEqual(theirs.tools.map((t) => t.name));
    expect(mine.tools).toEqual(theirs.tools.map(asOurs));
  });

  it('has a title and all four hints on every tool', async () => {
    const { tools } = await us.client.listTools();
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations?.title, tool.name).toBe(tool.title);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof tool.annotations?.[hint], `${tool.name}.${hint}`).toBe('boolean');
      }
    }
  });

  it('lists the same prompts, resources and resource templates', async () => {
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      expect(await answer(us, method, {}), method).toEqual(asV2(await answer(ref, method, {})));
    }
  });

  it('embeds the reference docs/ byte for byte, in its order', () => {
    const docs = join(referenceDist, 'docs');
    expect(DOCUMENTS.map(([name]) => name)).toEqual(readdirSync(docs));
    for (const [name, text] of DOCUMENTS) expect(text, name).toBe(readFileSync(join(docs, name), 'utf8'));
  });

  const calls: [method: string, params: unknown][] = [
    ['tools/call', { name: 'echo', arguments: { message: 'Hello, World!' } }],
    ['tools/call', { name: 'echo', arguments: { message: '' } }],
    ['tools/call', { name: 'echo', arguments: {} }],
    ['tools/call', { name: 'echo', arguments: { message: 123 } }],
    ['tools/call', { name: 'echo', arguments: { message: 'x', extra: 'stripped' } }],
    ['tools/call', { name: 'get-sum', arguments: { a: 0.1, b: 0.2 } }],
    ['tools/call', { name: 'get-sum', arguments: { a: 1.5, b: 2.5 } }],
    ['tools/call', { name: 'get-sum', arguments: { a: '1' } }],
    ['tools/call', { name: 'get-annotated-message', arguments: { messageType: 'error' } }],
    ['tools/call', { name: 'get-annotated-message', arguments: { messageType: 'success', includeImage: true } }],
    ['tools/call', { name: 'get-annotated-message', arguments: { messageType: 'debug' } }],
    ['tools/call', { name: 'get-annotated-message', arguments: { messageType: 'info' } }],
    ['tools/call', { name: 'get-structured-content', arguments: { location: 'New York' } }],
    ['tools/call', { name: 'get-structured-content', arguments: { location: 'Chicago' } }],
    ['tools/call', { name: 'get-structured-content', arguments: { location: 'Los Angeles' } }],
    ['tools/call', { name: 'get-structured-content', arguments: { location: 'Paris' } }],
    ['tools/call', { name: 'get-tiny-image', arguments: {} }],
    ['tools/call', { name: 'get-resource-links', arguments: {} }],
    ['tools/call', { name: 'get-resource-links', arguments: { count: 10 } }],
    ['tools/call', { name: 'get-resource-links', arguments: { count: 11 } }],
    ['tools/call', { name: 'get-resource-reference', arguments: {} }],
    ['tools/call', { name: 'get-resource-reference', arguments: { resourceType: 'Blob', resourceId: 5 } }],
    ['tools/call', { name: 'get-resource-reference', arguments: { resourceId: 1.5 } }],
    ['tools/call', { name: 'get-resource-reference', arguments: { resourceId: 0 } }],
    ['tools/call', { name: 'get-resource-reference', arguments: { resourceType: 'Invalid' } }],
    ['tools/call', { name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 } }],
    ['tools/call', { name: 'toggle-simulated-logging', arguments: {} }],
    ['tools/call', { name: 'toggle-simulated-logging', arguments: {} }],
    ['tools/call', { name: 'toggle-subscriber-updates', arguments: {} }],
    ['tools/call', { name: 'toggle-subscriber-updates', arguments: {} }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resource' } }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { name: 'hello.gz', data: dataUri('hello'), outputType: 'resourceLink' } }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { name: 'plain.gz', data: 'data:,hello%20world' } }],
    ['resources/read', { uri: 'demo://resource/session/hello.gz' }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { data: 'ftp://example.com/file.txt' } }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { data: 'not a url' } }],
    ['tools/call', { name: 'gzip-file-as-resource', arguments: { outputType: 'zip' } }],
    ['tools/call', { name: 'simulate-research-query', arguments: { topic: 'x' } }],
    ['tools/call', { name: 'trigger-url-elicitation', arguments: { url: 'https://example.com', errorPath: true, elicitationId: 'e-1' } }],
    ['tools/call', { name: 'trigger-url-elicitation', arguments: { url: 'not a url' } }],
    ['tools/call', { name: 'get-roots-list', arguments: {} }],
    ['tools/call', { name: 'no-such-tool', arguments: {} }],
    ['prompts/get', { name: 'simple-prompt' }],
    ['prompts/get', { name: 'args-prompt', arguments: { city: 'San Francisco', state: 'California' } }],
    ['prompts/get', { name: 'args-prompt', arguments: { city: 'New York' } }],
    ['prompts/get', { name: 'args-prompt', arguments: {} }],
    ['prompts/get', { name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } }],
    ['prompts/get', { name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '1' } }],
    ['prompts/get', { name: 'resource-prompt', arguments: { resourceType: 'Blob', resourceId: '5' } }],
    ['prompts/get', { name: 'resource-prompt', arguments: { resourceType: 'Invalid', resourceId: '1' } }],
    ['prompts/get', { name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: 'abc' } }],
    ['prompts/get', { name: 'no-such-prompt' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } }],
    [
      'completion/complete',
      {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Sales' } },
      },
    ],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: 'A' } }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'resource-prompt' }, argument: { name: 'resourceType', value: 'B' } }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'resource-prompt' }, argument: { name: 'resourceId', value: '7' } }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'args-prompt' }, argument: { name: 'city', value: 'S' } }],
    [
      'completion/complete',
      { ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '12' } },
    ],
    [
      'completion/complete',
      { ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/blob/{resourceId}' }, argument: { name: 'resourceId', value: '-5' } },
    ],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'demo://x/{y}' }, argument: { name: 'y', value: '1' } }],
    ...DOCUMENTS.map(([name]): [string, unknown] => ['resources/read', { uri: `demo://resource/static/document/${name}` }]),
    ['resources/read', { uri: 'demo://resource/dynamic/text/3' }],
    ['resources/read', { uri: 'demo://resource/dynamic/blob/2' }],
    ['resources/read', { uri: 'demo://resource/dynamic/text/0' }],
    ['resources/read', { uri: 'demo://resource/dynamic/blob/abc' }],
    ['resources/read', { uri: 'demo://nope' }],
    ['resources/subscribe', { uri: 'demo://resource/static/document/features.md' }],
    ['resources/unsubscribe', { uri: 'demo://resource/static/document/features.md' }],
    ['logging/setLevel', { level: 'error' }],
    ['tasks/list', {}],
    ['tasks/get', { taskId: 'nope' }],
    ['no/such/method', {}],
  ];

  it.each(calls.map(([method, params], i) => [i, method, JSON.stringify(params), params] as const))(
    'answers #%i %s %s the same',
    async (_i, method, _label, params) => {
      expect(await answer(us, method, params)).toEqual(asV2(await answer(ref, method, params)));
    },
  );

  it('lists the same tools to a client without capabilities (only the ungated ones and the task tool)', async () => {
    const [theirs, mine] = await Promise.all([reference({}), ours({})]);
    try {
      const [a, b] = await Promise.all([theirs.client.listTools(), mine.client.listTools()]);
      expect(a.tools).toHaveLength(13);
      expect(b.tools).toEqual(a.tools.map(asOurs));
    } finally {
      await Promise.all([theirs.close(), mine.close()]);
    }
  });
});
