import { readFileSync, writeFileSync } from 'node:fs';
import { createLogger, MAX_RESULT_BYTES } from '@mcpkit/protocol-core';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { until, type WireOptions, wire } from './helpers.js';

/**
 * The legacy profile's `tools/list` and `tools/call` answers, as the JSON text the server puts on the wire
 * (key order included), pinned in `toolWire.fixture.json`: the tool system under them may change, the wire
 * may not. Ids are left out; everything else the server sent for each request is kept.
 *
 * Pinned on SDK v2 (`UPDATE_TOOL_WIRE=1 npx vitest run test/legacy/toolWire.test.ts` rewrites it): v2 re-encodes
 * every `tools/call` result in its own key order and drops an embedded resource's `name` (README). The calls run
 * in-process, so the two malformed calls (`arguments: "x"`, a numeric name) get the SDK's -32602 with zod's JSON
 * dump; over stdio and HTTP the runner answers them in one line first (`tools.test.ts` checks that over HTTP).
 */
const FIXTURE = new URL('./toolWire.fixture.json', import.meta.url);

const env = { HOME: '/home/test', PATH: '/usr/bin', API_TOKEN: 'hidden' };

type Call = [name: string, args?: unknown];

const CALLS: Call[] = [
  ['echo', { message: 'Hello, World!' }],
  ['echo', { message: 'x', extra: 1 }],
  ['echo', {}],
  ['echo'],
  ['echo', { message: 5 }],
  ['no_such_tool', {}],
  ['add', { a: 5, b: 3 }],
  ['add', { a: 'x' }],
  ['longRunningOperation', { duration: 0, steps: 2 }],
  ['longRunningOperation', { duration: 'long' }],
  ['printEnv', {}],
  ['sampleLLM', { prompt: 'hi' }],
  ['getTinyImage', {}],
  ['annotatedMessage', { messageType: 'success', includeImage: true }],
  ['annotatedMessage', { messageType: 'loud' }],
  ['getResourceReference', { resourceId: 1 }],
  ['getResourceReference', { resourceId: 2 }],
  ['getResourceReference', { resourceId: 2.5 }],
  ['getResourceReference', { resourceId: 101 }],
  ['getResourceLinks'],
  ['getResourceLinks', { count: 11 }],
  ['structuredContent', { location: 'New York' }],
  ['structuredContent', { location: '   ' }],
  // An archive of files carries their time: an empty one does not.
  ['zip', { files: {} }],
  ['zip', { files: { 'a.txt': 'ftp://example.com/a.txt' } }],
  ['zip', { files: { 'a.txt': 'https://example.com/a.txt' } }],
  ['zip', { files: { 'a.txt': 'not a url' } }],
  ['listRoots', {}],
  ['startElicitation', {}],
  ['getTinyImage', 'x'],
  [5 as unknown as string, {}],
];

/** Every message the server sent for each request, as JSON text, without the request ids. */
async function capture(options: WireOptions & { env?: NodeJS.ProcessEnv }, calls: Call[], withList = true): Promise<string[]> {
  const logger = createLogger({ name: 'test', level: 'silent' });
  await using wired = await wire(
    createLegacyServer({ intervals: { loggingMs: 0, resourceUpdatesMs: 0 }, env, logger, ...options }),
    options,
  );
  // The roots exchange after `initialized` ends with a log message: the calls come after it.
  await until(() => wired.logs.length > 0);
  const answers: string[] = [];
  const send = async (method: string, params: Record<string, unknown>) => {
    const before = wired.received.length;
    await wired.client.request({ method, params } as never, z.unknown()).catch(() => undefined);
    // The answer only: requests the server makes of the client during the call are pinned elsewhere.
    const sent = wired.received
      .slice(before)
      .filter((message) => !('method' in message))
      .map((message) => {
        const { id: _id, ...rest } = message as { id?: unknown };
        return JSON.stringify(rest);
      });
    answers.push(`${method} ${JSON.stringify(params).slice(0, 200)}\n${sent.join('\n')}`);
  };
  if (withList) await send('tools/list', {});
  for (const [name, args] of calls) await send('tools/call', { name, ...(args === undefined ? {} : { arguments: args }) });
  return answers;
}

async function captureAll(): Promise<Record<string, string[]>> {
  const explode = new Proxy({} as NodeJS.ProcessEnv, {
    ownKeys() {
      throw new Error('secret internal detail');
    },
  });
  return {
    'no capabilities': await capture({}, CALLS),
    roots: await capture({ capabilities: { roots: { listChanged: true } } }, [['listRoots', {}]]),
    elicitation: await capture({ capabilities: { elicitation: {} } }, []),
    'every capability': await capture(
      {
        capabilities: { roots: {}, elicitation: {}, sampling: {} },
        setup(client) {
          let samples = 0;
          client.setRequestHandler(CreateMessageRequestSchema, () => {
            samples += 1;
            if (samples === 2) throw new McpError(-32600, 'User rejected sampling request');
            return { role: 'assistant', model: 'test', content: { type: 'text', text: 'a reply' } };
          });
          client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada', check: true } }));
          client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
        },
      },
      [
        ['sampleLLM', { prompt: 'hi', maxTokens: 5 }],
        ['sampleLLM', { prompt: 'again' }],
        ['startElicitation', {}],
        ['listRoots', {}],
      ],
    ),
    'unexpected failure': await capture({ env: explode }, [['printEnv', {}]], false),
    'answer over the size limit': await capture({}, [['echo', { message: 'x'.repeat(MAX_RESULT_BYTES) }]], false),
  };
}

describe('legacy tools on the wire', () => {
  it('tools/list and tools/call answer byte for byte as pinned', async () => {
    const actual = await captureAll();
    if (process.env.UPDATE_TOOL_WIRE) writeFileSync(FIXTURE, `${JSON.stringify(actual, null, 2)}\n`);
    expect(actual).toEqual(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  });
});
