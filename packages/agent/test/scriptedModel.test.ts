import { describe, expect, it, vi } from 'vitest';
import { type RecordedRequest, startScriptedModel } from '../src/testing/index.js';

function chat(baseUrl: string, body: object, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const ask = { model: 'asked-model', messages: [{ role: 'user', content: 'hi' }] };

/** The `data` of each SSE event of a whole stream body (checking the framing on the way). */
function sseData(text: string): string[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return event.slice('data: '.length);
    });
}

describe('startScriptedModel', () => {
  it('streams in the OpenAI chunk format: role first, deltas, finish_reason last, usage, [DONE]', async () => {
    await using model = await startScriptedModel({
      turns: [
        {
          text: ['Hel', 'lo'],
          toolCalls: [{ name: 'a__b', arguments: { x: 'yz' }, chunks: 2 }],
          usage: { promptTokens: 7, completionTokens: 3 },
        },
      ],
    });
    expect(model.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await chat(model.baseUrl, { ...ask, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const data = sseData(await response.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    for (const chunk of chunks)
      expect(chunk).toMatchObject({ id: 'chatcmpl-scripted-1', object: 'chat.completion.chunk', model: 'asked-model' });
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: 'Hel' },
      { content: 'lo' },
      { tool_calls: [{ index: 0, id: 'call_1_1', type: 'function', function: { name: 'a__b', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"yz"}' } }] },
      {},
      null,
    ]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null, null, null, null, 'tool_calls', undefined]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
  });

  it('answers one chat.completion body when the request does not stream', async () => {
    await using model = await startScriptedModel({
      model: 'mine',
      turns: [{ text: ['a', 'b'], reasoning: 'why', toolCalls: [{ id: 'c9', name: 't', arguments: '{bad' }], finishReason: 'length' }],
    });
    const response = await chat(model.baseUrl, { messages: [] });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'mine',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'ab',
            reasoning_content: 'why',
            tool_calls: [{ id: 'c9', type: 'function', function: { name: 't', arguments: '{bad' } }],
          },
          finish_reason: 'length',
        },
      ],
    });
  });

  it('records each request in order and gives turn functions the request; push adds turns', async () => {
    const seen: RecordedRequest[] = [];
    await using model = await startScriptedModel({
      turns: [
        { text: 'first' },
        (request) => {
          seen.push(request);
          return { text: `you said ${request.body.messages[0].content}` };
        },
      ],
    });
    model.push({ text: 'third' });
    const replies: unknown[] = [];
    for (const word of ['one', 'two', 'three']) {
      const response = await chat(model.baseUrl, { messages: [{ role: 'user', content: word }] }, { authorization: `Bearer ${word}` });
      replies.push(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content);
    }
    expect(replies).toEqual(['first', 'you said two', 'third']);
    expect(seen).toEqual([model.requests[1]]);
    expect(model.requests.map((r) => [r.index, r.method, r.path, r.headers.authorization, r.body.messages[0].content])).toEqual([
      [0, 'POST', '/v1/chat/completions', 'Bearer one', 'one'],
      [1, 'POST', '/v1/chat/completions', 'Bearer two', 'two'],
      [2, 'POST', '/v1/chat/completions', 'Bearer three', 'three'],
    ]);
  });

  it('answers HTTP 500 when the turns run out, or plays the last one again with repeat-last', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'only' }] });
    await chat(model.baseUrl, ask);
    const response = await chat(model.baseUrl, ask);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { message: 'scripted model: no turn left for request 2' } });
    expect(model.requests).toHaveLength(2);

    await using repeating = await startScriptedModel({ turns: [{ text: 'a' }, { text: 'again' }], onExhausted: 'repeat-last' });
    const texts: string[] = [];
    for (let i = 0; i < 3; i++)
      texts.push(
        ((await (await chat(repeating.baseUrl, ask)).json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
          .content,
      );
    expect(texts).toEqual(['a', 'again', 'again']);
  });

  it('sends scripted HTTP errors with Retry-After, lists the model, and 404s other routes', async () => {
    await using model = await startScriptedModel({
      model: 'listed',
      turns: [{ status: 429, message: 'slow', retryAfter: 2 }, { status: 503 }],
    });
    const limited = await chat(model.baseUrl, ask);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({ error: { message: 'slow', type: 'rate_limit_exceeded', param: null, code: null } });
    const unavailable = await chat(model.baseUrl, ask);
    expect(unavailable.status).toBe(503);
    expect(await unavailable.json()).toMatchObject({ error: { message: 'scripted model: HTTP 503' } });
    expect(await (await fetch(`${model.baseUrl}/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'listed', object: 'model' }],
    });
    const other = await fetch(`${model.baseUrl.replace('/v1', '')}/chat/completions`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect(model.requests).toHaveLength(2);
  });

  it('refuses a body that is not JSON without using a turn', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'kept' }] });
    const bad = await fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', body: 'nope' });
    expect(bad.status).toBe(400);
    expect(model.requests).toHaveLength(0);
    expect(
      ((await (await chat(model.baseUrl, ask)).json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content,
    ).toBe('kept');
  });

  it('writes raw responses as they are, and drops the connection for disconnect', async () => {
    await using model = await startScriptedModel({
      turns: [{ raw: ['data: x\n', '\n'], status: 202, contentType: 'text/plain' }, { disconnect: true }],
    });
    const raw = await chat(model.baseUrl, ask);
    expect([raw.status, raw.headers.get('content-type'), await raw.text()]).toEqual([202, 'text/plain', 'data: x\n\n']);
    await expect(chat(model.baseUrl, ask)).rejects.toThrow();
    expect(model.requests).toHaveLength(2);
  });

  it('waits delayMs and chunkDelayMs between events', async () => {
    await using model = await startScriptedModel({ turns: [{ text: ['a', 'b'], delayMs: 300, chunkDelayMs: 30 }] });
    const started = Date.now();
    const response = await chat(model.baseUrl, { ...ask, stream: true });
    const headersAt = Date.now();
    expect(sseData(await response.text())).toHaveLength(4);
    // The events come after the delays (300 + 3 × 30 ms); the headers before the first one (had they waited for
    // it, only the chunk delays would lie between them and the end). Lower bounds only: a timer never fires early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(Date.now() - headersAt).toBeGreaterThanOrEqual(300);
  });

  it('a hanging reply stays open until the client goes away, and close() ends it at once', async () => {
    const model = await startScriptedModel({ turns: [{ text: ['partial'], hang: true }, { hang: true }] });
    const streaming = await chat(model.baseUrl, { ...ask, stream: true });
    const reader = streaming.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(sseData(first)[0]!).choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: 'partial' },
      finish_reason: null,
    });
    const silent = chat(model.baseUrl, ask);
    silent.catch(() => {}); // checked below, once close() has dropped it
    const rest = reader.read().then(
      () => 'more',
      () => 'dropped',
    );
    let settled = false;
    void rest.finally(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(model.requests).toHaveLength(2)); // the silent request is held too
    // Still open after the model has answered another request since (an event, not a time, to check at).
    const models = await fetch(`${model.baseUrl}/models`);
    expect(models.status).toBe(200);
    await models.body?.cancel();
    expect(settled).toBe(false);
    // close() ends the hanging replies instead of waiting for them (they never end by themselves).
    await model.close();
    expect(await rest).toBe('dropped');
    await expect(silent).rejects.toThrow();
    await model.close();
    await expect(fetch(`${model.baseUrl}/models`)).rejects.toThrow();
  });
});
