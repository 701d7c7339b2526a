/**
 * Pieces of the one-line messages the MCP side gives: durations, SDK errors without their
 * prefixes, system error codes in words, URLs without their secrets.
 */
import { SdkError, SdkHttpError } from '@modelcontextprotocol/client';

/** `30 s`, `0.15 s`, `1.5 s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;
}

/**
 * An SDK error message without `MCP error <code>: `, which the SDK adds on each side (a
 * TypeScript SDK server puts its own on the wire too): it says nothing to a person or a model.
 */
export function stripSdkPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** A URL for messages: origin and path only (a query or credentials may hold a key). */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** The HTTP status an SDK transport error carries (`SdkHttpError`, `SseError`), if any. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/** The system error code of `error` or of its `cause` (fetch wraps them: `TypeError: fetch failed`). */
export function errnoCode(error: unknown): string | undefined {
  // An SDK error's string code (`CONNECTION_CLOSED`) is the SDK's, not the system's.
  if (error instanceof SdkError) return error.cause === undefined ? undefined : errnoCode(error.cause);
  const direct = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof direct === 'string') return direct;
  const nested = ((error as { cause?: unknown } | undefined)?.cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof nested === 'string' ? nested : undefined;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'not found',
  EACCES: 'permission denied',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'connection lost',
};

/** `connection refused (ECONNREFUSED)`; undefined when `error` has no code. */
export function errnoText(error: unknown): string | undefined {
  const code = errnoCode(error);
  if (code === undefined) return undefined;
  return `${ERRNO_TEXT[code] ?? 'system error'} (${code})`;
}
