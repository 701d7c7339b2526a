/**
 * What a failed model request means for the user: HTTP statuses and transport errors become
 * one-line `McpError`s that say what to fix, or `TransientFailure`s that are worth another attempt
 * (rate limits, server errors, dropped connections). Provider-neutral; the provider passes the
 * hints that name its own settings.
 */
import { STATUS_CODES } from 'node:http';
import { McpError } from '../errors.js';

/** What the messages name: the server, the model, and how the user configures the key. */
export interface FailureContext {
  /** The configured base URL (shown to the user). */
  baseUrl: string;
  /** The URL that was requested. */
  url: string;
  model: string;
  /** Whether an `Authorization` header was sent. */
  sentApiKey: boolean;
  /** The time allowed until the response headers (named when it runs out). */
  timeoutMs: number;
  /** How to give the key, e.g. `set OPENAI_API_KEY (or name another variable with --api-key-env)`. */
  apiKeyHint: string;
}

/** A failure that may go away: retried while attempts remain, else `final(attempts)` is thrown. */
export class TransientFailure extends Error {
  override readonly name = 'TransientFailure';
  constructor(
    message: string,
    /** The error to throw when no attempt is left. */
    readonly final: (attempts: number) => McpError,
    /** The server's `Retry-After`, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Statuses worth retrying (as the OpenAI SDKs do): timeouts, conflicts, rate limits, server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

type Headers = Record<string, string | string[] | undefined>;

/** One header's value (the first, when repeated). */
export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** At most `max` characters of `text` on one line, for error messages. */
export function excerpt(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The message of an `error` member (`{error: {message}}`, `{error: "…"}`), if the body has one. */
export function errorMemberMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error } = body as { error?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const { message } = error as { message?: unknown };
    return typeof message === 'string' ? message : JSON.stringify(error);
  }
  return undefined;
}

/**
 * The wait a server asks for, in milliseconds: `retry-after-ms` (OpenAI), else `Retry-After` in
 * seconds (fractions accepted) or as an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headerValue(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The useful part of an error body, on one line and at most ~300 characters: `error.message` (or
 * `message`, `detail`) from JSON, the text of an HTML page without its markup, else the text.
 */
export function bodyMessage(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const json: unknown = JSON.parse(trimmed);
      const message = errorMemberMessage(json);
      if (message !== undefined) return excerpt(message);
      if (typeof json === 'object' && json !== null) {
        const { message: plain, detail } = json as { message?: unknown; detail?: unknown };
        if (typeof plain === 'string') return excerpt(plain);
        if (detail !== undefined) return excerpt(typeof detail === 'string' ? detail : JSON.stringify(detail));
      }
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  if (/^<(!doctype|html|head|body|\?xml)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1];
    const text = title ?? trimmed.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
    return excerpt(text);
  }
  return excerpt(trimmed);
}

/** The error for an HTTP status that is not a success, from the response's headers and (capped) body. */
export function statusFailure(status: number, headers: Headers, bodyText: string, context: FailureContext): McpError | TransientFailure {
  const message = bodyMessage(bodyText) || STATUS_CODES[status] || 'no message';
  const { baseUrl, url, model } = context;
  if (status === 401 || status === 403) {
    const sent = context.sentApiKey ? '' : ' (no key was sent)';
    return new McpError(
      'CONFIG_ERROR',
      `the API key was refused (HTTP ${status}) by ${baseUrl}${sent}: ${message}; ${context.apiKeyHint}`,
      {
        details: { status },
      },
    );
  }
  if (status === 404) {
    return new McpError(
      'CONFIG_ERROR',
      `model "${model}" or endpoint ${url} not found (HTTP 404): ${message}; check --base-url (OpenAI-compatible servers usually end in /v1) and --model`,
      { details: { status } },
    );
  }
  if (isRetryableStatus(status)) {
    const what = status === 429 ? `${baseUrl} is limiting requests` : `the model server at ${baseUrl} failed`;
    return new TransientFailure(
      `HTTP ${status}`,
      (attempts) =>
        new McpError('MODEL_ERROR', `${what} (HTTP ${status}) after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${message}`, {
          details: { status, attempts },
        }),
      parseRetryAfter(headers),
    );
  }
  if (status === 400)
    return new McpError('MODEL_ERROR', `the model server at ${baseUrl} rejected the request (HTTP 400): ${message}`, {
      details: { status },
    });
  return new McpError('MODEL_ERROR', `the model server at ${baseUrl} answered HTTP ${status}: ${message}`, { details: { status } });
}

/** Transport error codes worth another attempt: the connection broke, the server may be fine. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The error code of a transport error (also from its `cause`, or the first of an `AggregateError`). */
function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') return code;
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

/**
 * The error for a transport failure, or undefined when `error` is not one (a bug, which is rethrown
 * as it is). Refused connections and unknown hosts are not retried: the URL or the server is wrong,
 * and waiting will not fix it.
 */
export function networkFailure(error: unknown, context: FailureContext): McpError | TransientFailure | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  const { baseUrl } = context;
  const reason = error instanceof Error ? error.message : String(error);
  const fail = (message: string) => new McpError('NETWORK_ERROR', message, { cause: error, details: { code } });
  if (code === 'ECONNREFUSED')
    return fail(`could not connect to ${baseUrl} (connection refused): is the model server running? Check --base-url`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return fail(`could not resolve the host of ${baseUrl} (${code}): check --base-url and the network`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return fail(`${baseUrl} did not answer within ${context.timeoutMs / 1000} s`);
  if (code === 'UND_ERR_BODY_TIMEOUT') return fail(`${baseUrl} stopped sending its reply (${reason})`);
  if (RETRYABLE_CODES.has(code)) {
    return new TransientFailure(code, (attempts) =>
      fail(`the connection to ${baseUrl} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason} (${code})`),
    );
  }
  if (code.startsWith('UND_ERR_') || /^E[A-Z]+$/.test(code) || code.startsWith('ERR_TLS') || code.includes('CERT'))
    return fail(`the request to ${baseUrl} failed: ${reason} (${code})`);
  return undefined;
}
