/** What the OpenAI client tests share: a collected reply, the error a call fails with, a client of a scripted model. */
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { McpError } from '../src/errors.js';
import { createOpenAIClient, type OpenAIClientOptions } from '../src/llm/openai.js';
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
