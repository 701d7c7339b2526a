/** The OpenAI-compatible client's failures: retries, statuses, transport errors, cancellation; and the failure helpers. */
import { describe, expect, it, vi } from 'vitest';
import { McpError } from '../src/errors.js';
import { bodyMessage, parseRetryAfter, TransientFailure } from '../src/llm/failures.js';
import { createOpenAIClient } from '../src/llm/openai.js';
import { type RetrySleep, withRetries } from '../src/llm/retry.js';
import { startScriptedModel } from '../src/testing/index.js';
import type { ChatEvent } from '../src/types.js';
import { client, closedPort, collect, failure, hello } from './openaiHelpers.js';

/** A retry wait that takes no time: it records how long it was asked to wait. */
function recordingSleep(waits: number[]): RetrySleep {
  return async (ms) => {
    waits.push(ms);
  };
}

/** A retry wait that never ends by itself: `started` resolves when it begins; only the signal's abort ends it. */
function heldSleep() {
  const waits: number[] = [];
  let begin!: () => void;
  const started = new Promise<void>((resolve) => {
    begin = resolve;
  });
  const sleep: RetrySleep = (ms, signal) => {
    waits.push(ms);
    begin();
    return new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
  };
  return { waits, started, sleep };
}

describe('createOpenAIClient: failures', () => {
  it('retries a 429, waiting as long as Retry-After says', async () => {
    await using model = await startScriptedModel({ turns: [{ status: 429, message: 'slow down', retryAfter: 0.3 }, { text: 'ok' }] });
    const waits: number[] = [];
    const events = await collect(client(model.baseUrl, { retrySleep: recordingSleep(waits) }).chat(hello));
    expect(waits).toEqual([300]);
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
      (async () => {
        for await (const event of client(model.baseUrl).chat(hello)) {
          seen.push(event);
          await model.close();
        }
      })(),
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
    // Before the reply: aborted once the model holds the request (the hanging reply never ends by itself).
    const beforeReply = new AbortController();
    const hanging = failure(collect(client(model.baseUrl).chat({ ...hello, stream: true, signal: beforeReply.signal })));
    await vi.waitFor(() => expect(model.requests).toHaveLength(1));
    beforeReply.abort();
    expect((await hanging).kind).toBe('CANCELLED');
    // During the retry wait: the 10 s the 503 asks for, in a wait that only the abort ends.
    const duringWait = new AbortController();
    const held = heldSleep();
    const waiting = failure(
      collect(client(model.baseUrl, { retrySleep: held.sleep }).chat({ ...hello, stream: false, signal: duringWait.signal })),
    );
    await held.started;
    duringWait.abort();
    expect((await waiting).kind).toBe('CANCELLED');
    expect(held.waits).toEqual([10_000]);
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
    const waits: number[] = [];
    const items = [];
    const source = withRetries(
      async function* () {
        attempts++;
        if (attempts < 3) throw new TransientFailure('busy', () => new McpError('MODEL_ERROR', 'gave up'), 60_000);
        yield 'ok';
      },
      { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 20, sleep: recordingSleep(waits), classify: (error) => error },
    );
    for await (const item of source) items.push(item);
    expect(items).toEqual(['ok']);
    expect(attempts).toBe(3);
    // Capped at 20 ms twice; uncapped it would wait the 60 s asked for, twice.
    expect(waits).toEqual([20, 20]);
  });
});
