/** What the OpenAI client tests share: a collected reply, the error a call fails with, a client of a scripted model. */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { McpError } from '../src/errors.js';
import { createOpenAIClient, type OpenAIClientOptions } from '../src/llm/openai.js';
import { streamChunks } from '../src/testing/openaiReplies.js';
import type { ChatEvent, ChatRequest } from '../src/types.js';

export async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The error `promise` rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

export const hello: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], stream: true };

export function client(baseUrl: string, options: Partial<OpenAIClientOptions> = {}) {
  return createOpenAIClient({ baseUrl, model: 'm', retryBaseDelayMs: 1, ...options });
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

export interface HeldStream extends AsyncDisposable {
  baseUrl: string;
  /** SSE events written so far (`[DONE]` included). */
  sent(): number;
  /** Writes the rest of the stream. */
  release(): void;
}

/**
 * An OpenAI-compatible server whose streamed reply (the scripted model's chunks for `texts`) stops after its
 * first event until `release()`: what a client yields before that, it yielded while the stream was still open.
 */
export async function startHeldStream(texts: string[]): Promise<HeldStream> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const identity = { id: 'chatcmpl-held', model: 'm', created: 0, requestNumber: 1 };
  const events = [...streamChunks({ text: texts }, identity).map((chunk) => JSON.stringify(chunk)), '[DONE]'];
  let sent = 0;
  const server = createHttpServer(async (req, res) => {
    for await (const _chunk of req); // the request body, unread
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [position, data] of events.entries()) {
      if (position === 1) await released;
      res.write(`data: ${data}\n\n`);
      sent++;
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    sent: () => sent,
    release,
    async [Symbol.asyncDispose]() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
