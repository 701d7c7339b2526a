import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpError } from '../src/errors.js';
import { bodyMessage, parseRetryAfter, TransientFailure } from '../src/llm/failures.js';
import { createOpenAIClient, type OpenAIClientOptions } from '../src/llm/openai.js';
import { withRetries } from '../src/llm/retry.js';
import { createSseDecoder, type SseEvent } from '../src/llm/sse.js';
import { createToolCallAssembler, type ToolCallDelta } from '../src/llm/toolCallAssembler.js';
import { startScriptedModel } from '../src/testing/index.js';
import type { ChatEvent, ChatRequest } from '../src/types.js';

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** `promise`, or a rejection after `ms` (so that a hang fails the test quickly). */
function within<T>(promise: Promise<T>, ms = 1000): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms))]);
}

const hello: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], stream: true };

function client(baseUrl: string, options: Partial<OpenAIClientOptions> = {}) {
  return createOpenAIClient({ baseUrl, model: 'm', retryBaseDelayMs: 1, ...options });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('SSE decoder', () => {
  const stream = '\uFEFF: a comment\r\ndata: {"a":1}\r\n\r\nevent: error\ndata:first\ndata:  second\nid: 7\n\n\rdata: cr\r\rdata: last';
  const expected: SseEvent[] = [
    { data: '{"a":1}' },
    { event: 'error', data: 'first\n second', id: '7' },
    { data: 'cr', id: '7' },
    { data: 'last', id: '7' },
  ];

  it('reads comments, CRLF and CR line ends, multi-line data, fields and an unterminated last event', () => {
    const decoder = createSseDecoder();
    expect([...decoder.push(stream), ...decoder.end()]).toEqual(expected);
  });

  it('gives the same events however the stream is cut, including between \\r and \\n', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = createSseDecoder();
      const events = [...decoder.push(stream.slice(0, cut)), ...decoder.push(stream.slice(cut)), ...decoder.end()];
      expect(events, `cut at ${cut}`).toEqual(expected);
    }
    const decoder = createSseDecoder();
    const oneByOne = [...stream].flatMap((char) => decoder.push(char));
    expect([...oneByOne, ...decoder.end()]).toEqual(expected);
  });

  it('returns an event from the push that completes it, and decodes UTF-8 split across byte chunks', () => {
    const decoder = createSseDecoder();
    const bytes = new TextEncoder().encode('data: héllo 🙂\n\n');
    const split = bytes.indexOf(0xf0) + 2;
    expect(decoder.push(bytes.subarray(0, split))).toEqual([]);
    expect(decoder.push(bytes.subarray(split))).toEqual([{ data: 'héllo 🙂' }]);
    expect(decoder.end()).toEqual([]);
  });
});

describe('createOpenAIClient: replies', () => {
  it('yields each text delta as it arrives, not when the stream ends', async () => {
    await using model = await startScriptedModel({ turns: [{ text: ['One', ' two', ' three'], chunkDelayMs: 60 }] });
    const started = Date.now();
    const seen: { text: string; at: number }[] = [];
    const events = await collect(
      (async function* () {
        for await (const event of client(model.baseUrl).chat(hello)) {
          if (event.type === 'text') seen.push({ text: event.text, at: Date.now() - started });
          yield event;
        }
      })(),
    );
    expect(seen.map((s) => s.text)).toEqual(['One', ' two', ' three']);
    // Sent 60 ms apart: held back until the end, they would all arrive together.
    expect(seen[2]!.at - seen[0]!.at).toBeGreaterThanOrEqual(60);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });
  });

  it('yields text from a stream that has not finished, and an abort then ends it with CANCELLED promptly', async () => {
    await using model = await startScriptedModel({ turns: [{ text: ['partial'], hang: true }] });
    const controller = new AbortController();
    const iterator = client(model.baseUrl)
      .chat({ ...hello, signal: controller.signal })
      [Symbol.asyncIterator]();
    expect((await within(iterator.next())).value).toEqual({ type: 'text', text: 'partial' });
    const pending = within(iterator.next());
    controller.abort();
    // The stream hangs forever: only the abort can end it.
    const error = await failure(pending);
    expect(error.kind).toBe('CANCELLED');
  });

  it('assembles tool-call arguments split across chunks, several calls in order, after the text', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          text: 'Looking.',
          toolCalls: [
            { id: 'a', name: 'fs__read', arguments: { path: '/tmp/x', lines: [1, 2] }, chunks: 5 },
            { name: 'web__get', arguments: '{"url":"https://example.com"}', chunks: 3 },
          ],
          usage: { promptTokens: 10, completionTokens: 4 },
        },
      ],
    });
    const events = await collect(client(model.baseUrl).chat(hello));
    expect(events).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'tool_call', call: { id: 'a', name: 'fs__read', arguments: '{"path":"/tmp/x","lines":[1,2]}' } },
      { type: 'tool_call', call: { id: 'call_1_2', name: 'web__get', arguments: '{"url":"https://example.com"}' } },
      { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 10, completionTokens: 4 } },
    ]);
  });

  it('gives the same events without streaming, and ignores reasoning', async () => {
    const turn = {
      reasoning: ['Hmm. ', 'Yes.'],
      text: ['The ', 'answer.'],
      toolCalls: [{ id: 'c1', name: 't__x', arguments: { a: 1 }, chunks: 2 }],
      finishReason: 'function_call',
      usage: { promptTokens: 3 },
    };
    await using model = await startScriptedModel({ turns: [turn, turn] });
    const streamed = await collect(client(model.baseUrl).chat(hello));
    const whole = await collect(client(model.baseUrl).chat({ ...hello, stream: false }));
    expect(streamed.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''))).toEqual(['The ', 'answer.']);
    expect(whole).toEqual([
      { type: 'text', text: 'The answer.' },
      { type: 'tool_call', call: { id: 'c1', name: 't__x', arguments: '{"a":1}' } },
      { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 0 } },
    ]);
    expect(streamed.filter((e) => e.type !== 'text')).toEqual(whole.slice(1));
    expect(model.requests.map((r) => r.body.stream)).toEqual([true, false]);
  });

  it('maps finish reasons', async () => {
    const reasons = ['stop', 'length', 'content_filter', 'tool_calls', 'function_call', 'eos_token'];
    await using model = await startScriptedModel({ turns: reasons.map((finishReason) => ({ text: 'x', finishReason })) });
    const mapped: unknown[] = [];
    for (const _ of reasons) mapped.push((await collect(client(model.baseUrl).chat(hello))).at(-1));
    expect(mapped.map((e) => (e as { finishReason: string }).finishReason)).toEqual([
      'stop',
      'length',
      'content_filter',
      'tool_calls',
      'tool_calls',
      'unknown',
    ]);
  });

  it('tolerates a stream without [DONE], with comments and CRLF, calls without ids or indexes, and usage in the last chunk', async () => {
    const chunk = (delta: object, finish: string | null = null, extra: object = {}) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\r\n\r\n`;
    await using model = await startScriptedModel({
      turns: [
        {
          raw: [
            ': keep-alive\r\n\r\n',
            chunk({ role: 'assistant', content: 'Hi', reasoning_content: 'thinking' }),
            chunk({ tool_calls: [{ function: { name: 'a__b', arguments: '{"x":' } }] }),
            chunk({ tool_calls: [{ function: { arguments: '1}' } }] }),
            chunk({}, 'tool_calls', { usage: { prompt_tokens: 5, completion_tokens: 2 } }).slice(0, 20),
            chunk({}, 'tool_calls', { usage: { prompt_tokens: 5, completion_tokens: 2 } }).slice(20),
          ],
        },
      ],
    });
    const events = await collect(client(model.baseUrl).chat(hello));
    expect(events[0]).toEqual({ type: 'text', text: 'Hi' });
    expect(events[1]).toMatchObject({ type: 'tool_call', call: { name: 'a__b', arguments: '{"x":1}' } });
    expect((events[1] as { call: { id: string } }).call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(events[2]).toEqual({ type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 5, completionTokens: 2 } });
    expect(events).toHaveLength(3);
  });

  it('an error object inside the stream is MODEL_ERROR with its message, after the text already given, and is not retried', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          raw: [
            'data: {"choices":[{"index":0,"delta":{"content":"Par"}}]}\n\n',
            'data: {"error":{"message":"context window exceeded"}}\n\n',
          ],
        },
        { text: 'never' },
      ],
    });
    const seen: ChatEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of client(model.baseUrl).chat(hello)) seen.push(event);
      })(),
    );
    expect(seen).toEqual([{ type: 'text', text: 'Par' }]);
    expect(error.kind).toBe('MODEL_ERROR');
    expect(error.message).toContain('context window exceeded');
    expect(model.requests).toHaveLength(1);
  });
});

describe('createOpenAIClient: the request', () => {
  it('sends messages, tools, limits and headers in the OpenAI wire format', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'ok' }, { text: 'ok' }] });
    const llm = createOpenAIClient({ baseUrl: `${model.baseUrl}/`, model: 'gpt-x', apiKey: 'sk-test', headers: { 'X-Extra': 'yes' } });
    expect(llm.name).toBe('openai-compatible:gpt-x');
    await collect(
      llm.chat({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Read it.' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'fs__read', arguments: '{"p":1}' }] },
          { role: 'tool', toolCallId: 'c1', name: 'fs__read', content: 'data', isError: false },
          { role: 'assistant', content: 'Done.', toolCalls: [] },
        ],
        tools: [
          {
            name: 'fs__read',
            description: 'Reads.',
            inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
          },
        ],
        stream: true,
        maxTokens: 100,
        temperature: 0.2,
      }),
    );
    await collect(llm.chat({ messages: [{ role: 'user', content: 'again' }], tools: [], stream: false }));
    const [first, second] = model.requests;
    expect(first?.path).toBe('/v1/chat/completions');
    expect(first?.headers.authorization).toBe('Bearer sk-test');
    expect(first?.headers['x-extra']).toBe('yes');
    expect(first?.headers['content-type']).toBe('application/json');
    expect(first?.body).toEqual({
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Read it.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'fs__read', arguments: '{"p":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'data' },
        { role: 'assistant', content: 'Done.' },
      ],
      tools: [{ type: 'function', function: { name: 'fs__read', description: 'Reads.', parameters: { type: 'object', properties: {} } } }],
      stream: true,
      max_tokens: 100,
      temperature: 0.2,
    });
    expect(second?.body).toEqual({ model: 'gpt-x', messages: [{ role: 'user', content: 'again' }], stream: false });
  });
});

describe('createOpenAIClient: failures', () => {
  it('retries a 429, waiting as long as Retry-After says', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 429, message: 'slow down', retryAfter: 0.3 }, { text: 'ok' }] });
    const started = Date.now();
    const events = await collect(client(model.baseUrl).chat(hello));
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(events[0]).toEqual({ type: 'text', text: 'ok' });
    expect(model.requests).toHaveLength(2);
  });

  it('gives up after maxRetries with MODEL_ERROR naming the status, the attempts and the message', async () => {
    await using model = await startScriptedModel({
      turns: [{ status: 500, message: 'boom' }, { status: 503 }, { status: 500, message: 'boom' }, { text: 'late' }],
    });
    const error = await failure(collect(client(model.baseUrl).chat(hello)));
    expect(error.kind).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/\(HTTP 500\) after 3 attempts: boom$/);
    expect(model.requests).toHaveLength(3);
  });

  it('says "after N attempts" for 429 too, and maxRetries 0 makes one attempt', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 429, message: 'quota' }, { text: 'late' }] });
    const error = await failure(collect(client(model.baseUrl, { maxRetries: 0 }).chat(hello)));
    expect(error.message).toMatch(/\(HTTP 429\) after 1 attempt: quota$/);
    expect(model.requests).toHaveLength(1);
  });

  it('401 is CONFIG_ERROR about the API key, not retried', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 401, message: 'Incorrect API key provided' }, { text: 'x' }] });
    const error = await failure(collect(client(model.baseUrl, { apiKey: 'bad' }).chat(hello)));
    expect(error.kind).toBe('CONFIG_ERROR');
    expect(error.message).toContain(`the API key was refused (HTTP 401) by ${model.baseUrl}: Incorrect API key provided`);
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).not.toContain('\n');
    expect(model.requests).toHaveLength(1);
  });

  it('404 is CONFIG_ERROR naming the model and the URL', async () => {
    await using model = await startScriptedModel({ turns: [] });
    const wrong = model.baseUrl.replace(/\/v1$/, '/api');
    const error = await failure(collect(createOpenAIClient({ baseUrl: wrong, model: 'llama9' }).chat(hello)));
    expect(error.kind).toBe('CONFIG_ERROR');
    expect(error.message).toContain('"llama9"');
    expect(error.message).toContain(`${wrong}/chat/completions`);
    expect(error.message).toContain('--base-url');
  });

  it('400 is MODEL_ERROR with the server message, not retried', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 400, message: "Invalid schema for function 'x'" }, { text: 'x' }] });
    const error = await failure(collect(client(model.baseUrl).chat(hello)));
    expect(error.kind).toBe('MODEL_ERROR');
    expect(error.message).toContain("(HTTP 400): Invalid schema for function 'x'");
    expect(model.requests).toHaveLength(1);
  });

  it('an HTML error page becomes a short line of its text', async () => {
    const page = `<!DOCTYPE html><html><head><style>body{}</style></head><body><h1>Bad gateway</h1>${'<p>filler</p>'.repeat(200)}</body></html>`;
    await using model = await startScriptedModel({ turns: [{ raw: page, status: 502, contentType: 'text/html' }] });
    const error = await failure(collect(client(model.baseUrl, { maxRetries: 0 }).chat(hello)));
    expect(error.message).toContain('(HTTP 502) after 1 attempt: Bad gateway filler');
    expect(error.message).not.toMatch(/[<>]|body\{/);
    expect(error.message.length).toBeLessThan(450);
  });

  it('a success that is neither JSON nor an event stream is MODEL_ERROR', async () => {
    await using model = await startScriptedModel({
      turns: [{ raw: '<html><body>Welcome to nginx</body></html>', contentType: 'text/html' }],
    });
    const error = await failure(collect(client(model.baseUrl).chat(hello)));
    expect(error.kind).toBe('MODEL_ERROR');
    expect(error.message).toContain('text/html, not JSON or an event stream: Welcome to nginx');
  });

  it('a dropped connection is retried; when it keeps dropping it is NETWORK_ERROR', async () => {
    await using model = await startScriptedModel({
      turns: [{ disconnect: true }, { text: 'back' }, { disconnect: true }, { disconnect: true }],
    });
    expect((await collect(client(model.baseUrl).chat(hello)))[0]).toEqual({ type: 'text', text: 'back' });
    const error = await failure(collect(client(model.baseUrl, { maxRetries: 1 }).chat(hello)));
    expect(error.kind).toBe('NETWORK_ERROR');
    expect(error.message).toContain('after 2 attempts');
    expect(model.requests).toHaveLength(4);
  });

  it('a connection lost after text was yielded is not retried', async () => {
    const model = await startScriptedModel({ turns: [{ text: ['half'], hang: true }, { text: 'again' }] });
    const seen: ChatEvent[] = [];
    const error = await failure(
      within(
        (async () => {
          for await (const event of client(model.baseUrl).chat(hello)) {
            seen.push(event);
            await model.close();
          }
        })(),
      ),
    );
    expect(seen).toEqual([{ type: 'text', text: 'half' }]);
    expect(error.kind).toBe('NETWORK_ERROR');
    expect(error.message).toMatch(/failed after 1 attempt: /);
    expect(model.requests).toHaveLength(1);
  });

  it('a refused connection is NETWORK_ERROR naming the base URL', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await failure(collect(client(baseUrl).chat(hello)));
    expect(error.kind).toBe('NETWORK_ERROR');
    expect(error.message).toContain(`could not connect to ${baseUrl}`);
  });

  it('no response headers within requestTimeoutMs is NETWORK_ERROR', async () => {
    await using model = await startScriptedModel({ turns: [{ hang: true }] });
    const error = await failure(collect(client(model.baseUrl, { requestTimeoutMs: 150 }).chat(hello)));
    expect(error.kind).toBe('NETWORK_ERROR');
    expect(error.message).toContain('did not answer within 0.15 s');
    expect(model.requests).toHaveLength(1);
  });

  it('an abort before the reply, or during a retry wait, is CANCELLED at once', async () => {
    await using model = await startScriptedModel({ turns: [{ hang: true }, { status: 503, retryAfter: 10 }] });
    for (const stream of [true, false]) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      const error = await failure(collect(client(model.baseUrl).chat({ ...hello, stream, signal: controller.signal })));
      expect(error.kind).toBe('CANCELLED');
      // A factor of the 10 s retry wait it must not sit out (the hanging reply never ends by itself).
      expect(Date.now() - started).toBeLessThan(10_000 / 2);
    }
    expect(model.requests).toHaveLength(2);
  });

  it('an already aborted signal sends nothing', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'x' }] });
    const error = await failure(collect(client(model.baseUrl).chat({ ...hello, signal: AbortSignal.abort() })));
    expect(error.kind).toBe('CANCELLED');
    expect(model.requests).toHaveLength(0);
  });

  it('an `event: error` stream event is MODEL_ERROR; a JSON reply to a streaming request is read as a whole reply', async () => {
    await using model = await startScriptedModel({
      turns: [
        { raw: 'event: error\ndata: {"error":{"message":"out of memory"}}\n\n' },
        {
          raw: JSON.stringify({ choices: [{ message: { content: [{ type: 'text', text: 'parts' }] }, finish_reason: 'stop' }] }),
          contentType: 'application/json',
        },
      ],
    });
    const error = await failure(collect(client(model.baseUrl).chat(hello)));
    expect(error.kind).toBe('MODEL_ERROR');
    expect(error.message).toMatch(/error mid-stream: out of memory$/);
    expect(await collect(client(model.baseUrl).chat(hello))).toEqual([
      { type: 'text', text: 'parts' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('a base URL that is not http(s) is CONFIG_ERROR at once', () => {
    expect(() => createOpenAIClient({ baseUrl: 'localhost:11434', model: 'm' })).toThrow(/must start with http/);
    expect(() => createOpenAIClient({ baseUrl: 'not a url', model: 'm' })).toThrow(McpError);
  });
});

describe('tool-call assembly', () => {
  const assemble = (deltas: Omit<ToolCallDelta, 'position'>[]) => {
    const assembler = createToolCallAssembler();
    for (const delta of deltas) assembler.add({ position: 0, ...delta });
    return assembler.finish();
  };

  it('orders calls by index and joins argument pieces', () => {
    expect(
      assemble([
        { index: 1, id: 'b', name: 'two', arguments: '' },
        { index: 0, id: 'a', name: 'one', arguments: '{"x"' },
        { index: 1, arguments: '{}' },
        { index: 0, arguments: ':1}' },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{"x":1}' },
      { id: 'b', name: 'two', arguments: '{}' },
    ]);
  });

  it('copes with servers that reuse index 0, omit indexes, repeat names or send objects', () => {
    expect(
      assemble([
        { index: 0, id: 'a', name: 'one', arguments: { q: 1 } },
        { index: 0, id: 'b', name: 'two', arguments: '' },
        { index: 0, name: 'two', arguments: '{"r":' },
        { index: 0, id: 'b', arguments: '2}' },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{"q":1}' },
      { id: 'b', name: 'two', arguments: '{"r":2}' },
    ]);
    const [first, second, ...rest] = assemble([
      { id: 'x', name: 'n' },
      { arguments: '{"k":' },
      { arguments: 'true}' },
      { name: 'm' },
      { id: 'y', name: 'o' },
    ]);
    expect(rest).toEqual([]);
    expect(first).toEqual({ id: 'x', name: 'nm', arguments: '{"k":true}' });
    expect(second).toEqual({ id: 'y', name: 'o', arguments: '{}' });
  });
});

describe('failure helpers', () => {
  it('parseRetryAfter reads seconds, HTTP dates and retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });

  it('bodyMessage finds the message in JSON bodies and keeps any text to one short line', () => {
    expect(bodyMessage('{"error":{"message":"bad key","type":"x"}}')).toBe('bad key');
    expect(bodyMessage('{"error":"model not found"}')).toBe('model not found');
    expect(bodyMessage('{"object":"error","message":"vLLM says no"}')).toBe('vLLM says no');
    expect(bodyMessage('{"detail":[{"loc":["body"],"msg":"field required"}]}')).toBe('[{"loc":["body"],"msg":"field required"}]');
    expect(bodyMessage('<html><head><title>502 Bad Gateway</title></head><body>…</body></html>')).toBe('502 Bad Gateway');
    const long = bodyMessage(`line one\n${'x'.repeat(1000)}`);
    expect(long).toMatch(/^line one x+…$/);
    expect(long.length).toBe(300);
  });

  it('withRetries caps the wait a server asks for', async () => {
    let attempts = 0;
    const started = Date.now();
    const items = [];
    const source = withRetries(
      async function* () {
        attempts++;
        if (attempts < 3) throw new TransientFailure('busy', () => new McpError('MODEL_ERROR', 'gave up'), 60_000);
        yield 'ok';
      },
      { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 20, classify: (error) => error },
    );
    for await (const item of source) items.push(item);
    expect(items).toEqual(['ok']);
    expect(attempts).toBe(3);
    // Capped at 20 ms twice; uncapped it would wait 60 s twice. A factor of the wait asked for, not a wall-clock figure.
    expect(Date.now() - started).toBeLessThan(60_000 / 10);
  });
});
