/**
 * An OpenAI-compatible chat-completions client: OpenAI itself, Ollama, LM Studio, vLLM, the
 * llama.cpp server and the like all speak `POST {baseUrl}/chat/completions`.
 *
 * Text deltas are yielded the moment their SSE event is complete; tool calls are assembled and
 * yielded whole at the end, then `done`. Failures are one-line `McpError`s (see `failures.ts`);
 * rate limits, server errors and dropped connections are retried until something has been yielded.
 */
import type { Dispatcher } from 'undici';
import { McpError } from '../errors.js';
import type { ChatEvent, ChatRequest, LLMClient } from '../types.js';
import { VERSION } from '../version.js';
import { bodyMessage, type FailureContext, headerValue, networkFailure, statusFailure } from './failures.js';
import { post, readText } from './http.js';
import { buildChatBody, createChunkReader, readCompletion } from './openaiWire.js';
import { type RetrySleep, withRetries } from './retry.js';
import { readSseEvents } from './sse.js';

export interface OpenAIClientOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (a trailing slash is fine). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Local servers usually need none. */
  apiKey?: string;
  /** Extra request headers (they win over the defaults, `Authorization` included). */
  headers?: Record<string, string>;
  /** Attempts after the first for 408/409/429/5xx and dropped connections. Default 2. */
  maxRetries?: number;
  /** Time allowed until the response headers arrive. Default 120 000 ms. */
  requestTimeoutMs?: number;
  /** The first retry's delay; each next one doubles it (a server's `Retry-After` wins, up to 20 s). Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Waits between attempts, rejecting when the request's signal aborts (tests: one they drive). Default: a real timer. */
  retrySleep?: RetrySleep;
  /** An undici dispatcher (a proxy agent, say). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_RETRY_BASE_DELAY_MS = 500;
/** Error bodies are read this far for their message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A whole (non-streamed) reply larger than this is refused rather than held in memory. */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;
const API_KEY_HINT = 'set OPENAI_API_KEY (or name another variable with --api-key-env)';

/** The base URL without trailing slashes; a URL that is not http(s) is a configuration error. */
function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new McpError('CONFIG_ERROR', `the model base URL "${baseUrl}" is not a URL (e.g. https://api.openai.com/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new McpError('CONFIG_ERROR', `the model base URL "${baseUrl}" must start with http:// or https://`);
  return baseUrl.replace(/\/+$/, '');
}

/** Default headers, then the configured ones (names lower-cased so that they replace, not duplicate). */
function requestHeaders(options: OpenAIClientOptions, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'user-agent': `mcpkit-agent/${VERSION}`,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

/** The events of an SSE body, text first-come first-served, tool calls and `done` at the end. */
async function* streamEvents(body: AsyncIterable<Uint8Array> | Iterable<string>): AsyncGenerator<ChatEvent> {
  const reader = createChunkReader();
  for await (const event of readSseEvents(body)) {
    const { events, more } = reader.push(event.data, event.event);
    yield* events;
    // After `[DONE]` nothing more is read, even if the server keeps the stream open.
    if (!more) break;
  }
  yield* reader.end();
}

/** Creates the client. Throws `CONFIG_ERROR` at once when `baseUrl` is not an http(s) URL. */
export function createOpenAIClient(options: OpenAIClientOptions): LLMClient {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const url = `${baseUrl}/chat/completions`;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const context: FailureContext = {
    baseUrl,
    url,
    model: options.model,
    sentApiKey: Boolean(options.apiKey) || Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization'),
    timeoutMs,
    apiKeyHint: API_KEY_HINT,
  };

  /** One request: its events, or a thrown status/transport error for `withRetries` to judge. */
  async function* attempt(request: ChatRequest, body: string): AsyncGenerator<ChatEvent> {
    const response = await post({
      url,
      headers: requestHeaders(options, request.stream),
      body,
      signal: request.signal,
      headersTimeoutMs: timeoutMs,
      dispatcher: options.dispatcher,
    });
    try {
      if (response.statusCode < 200 || response.statusCode >= 300) {
        const { text } = await readText(response.body, MAX_ERROR_BODY_BYTES);
        throw statusFailure(response.statusCode, response.headers, text, context);
      }
      const contentType = headerValue(response.headers, 'content-type') ?? '';
      if (/text\/event-stream/i.test(contentType)) {
        yield* streamEvents(response.body as AsyncIterable<Uint8Array>);
        return;
      }
      const { text, truncated } = await readText(response.body, MAX_REPLY_BYTES);
      if (truncated) throw new McpError('MODEL_ERROR', `the reply from ${baseUrl} is larger than ${MAX_REPLY_BYTES / 1024 / 1024} MiB`);
      const start = text.trimStart();
      // Some servers label their replies wrongly (or not at all): the text says what it is.
      if (/json/i.test(contentType) || start.startsWith('{')) yield* readCompletion(text);
      else if (start.startsWith('data:') || start.startsWith(':')) yield* streamEvents([text]);
      else
        throw new McpError(
          'MODEL_ERROR',
          `${url} answered with ${contentType || 'an untyped body'}, not JSON or an event stream: ${bodyMessage(start)}`,
        );
    } finally {
      response.body.destroy();
    }
  }

  return {
    name: `openai-compatible:${options.model}`,
    chat(request: ChatRequest): AsyncIterable<ChatEvent> {
      const body = JSON.stringify(buildChatBody(options.model, request));
      return withRetries(() => attempt(request, body), {
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
        signal: request.signal,
        ...(options.retrySleep ? { sleep: options.retrySleep } : {}),
        classify: (error) => (error instanceof McpError ? error : (networkFailure(error, context) ?? error)),
      });
    },
  };
}
