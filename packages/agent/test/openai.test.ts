/** The OpenAI-compatible client against a scripted model: replies (streamed and whole) and the request it sends. */
import { describe, expect, it } from 'vitest';
import { createOpenAIClient } from '../src/llm/openai.js';
import { startScriptedModel } from '../src/testing/index.js';
import type { ChatEvent } from '../src/types.js';
import { client, collect, failure, hello, startHeldStream } from './openaiHelpers.js';

describe('createOpenAIClient: replies', () => {
  it('yields each text delta as it arrives, not when the stream ends', async () => {
    // The server holds the stream after its first delta until the test has had that delta from the iterator: a
    // client that kept deltas back until the end would never yield it (and the test would time out).
    await using model = await startHeldStream(['One', ' two', ' three']);
    const iterator = client(model.baseUrl).chat(hello)[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'text', text: 'One' } });
    expect(model.sent()).toBe(1);
    model.release();
    const rest: ChatEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(rest).toEqual([
      { type: 'text', text: ' two' },
      { type: 'text', text: ' three' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('yields text from a stream that has not finished, and an abort then ends it with CANCELLED promptly', async () => {
    await using model = await startScriptedModel({ turns: [{ text: ['partial'], hang: true }] });
    const controller = new AbortController();
    const iterator = client(model.baseUrl)
      .chat({ ...hello, signal: controller.signal })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'text', text: 'partial' });
    const pending = iterator.next();
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
