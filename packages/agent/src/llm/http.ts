/**
 * The HTTP side of a provider: one POST over undici, and capped reads of a response body. undici is
 * loaded on the first request, so importing the package costs nothing until a model is called.
 */
import type { Dispatcher } from 'undici';

/** One POST: where, what, and its limits. */
export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal;
  /** Time allowed until the response headers. */
  headersTimeoutMs: number;
  /** Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
}

/** undici's response: status, headers, and the body as a readable stream. */
export type HttpResponse = Dispatcher.ResponseData;

/**
 * Sends the request. The response body is returned unread: the caller reads it or destroys it. A
 * body destroyed before its end emits an error nobody needs to hear, so one is listened for here.
 */
export async function post(options: PostOptions): Promise<HttpResponse> {
  const { request } = await import('undici');
  const response = await request(options.url, {
    method: 'POST',
    headers: options.headers,
    body: options.body,
    signal: options.signal,
    headersTimeout: options.headersTimeoutMs,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  response.body.on('error', () => {});
  return response;
}

/** The body as text, up to `maxBytes` (the rest is not read: the body is destroyed). */
export async function readText(body: HttpResponse['body'], maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    body.destroy();
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}
