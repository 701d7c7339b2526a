/** The client's one error class, and how transport failures (undici's, the socket's, zlib's) become one. */

export type HttpErrorKind = 'blocked' | 'scheme' | 'timeout' | 'too-large' | 'redirects' | 'connect' | 'encoding';

/** A failed GET; `message` is the part after `Failed to fetch <url>: `. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly kind: HttpErrorKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Python-repr-like rendering of a transport error, as the reference's `{e!r}` (`ConnectError('…')`). */
export function repr(kind: string, message: string): string {
  return `${kind}('${message.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`;
}

/** The first error in `error`'s `cause` chain (itself included, 8 deep at most) that passes `test`. */
export function findCause<T>(error: unknown, test: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A transport failure as `HttpError('connect')`, named like the reference's httpx errors (`ReadTimeout('…')`). */
export function transportError(error: unknown): HttpError {
  const inner = findCause(
    error,
    (e): e is NodeJS.ErrnoException => e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string',
  );
  const code = inner?.code ?? '';
  const message = inner?.message ?? (error instanceof Error ? error.message : String(error));
  let kind = 'ConnectError';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') kind = 'ConnectTimeout';
  else if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') kind = 'ReadTimeout';
  else if (code === 'UND_ERR_SOCKET' || code.startsWith('HPE_') || code === 'ECONNRESET') kind = 'RemoteProtocolError';
  else if (code.startsWith('Z_') || code === 'ERR_PADDING_1' || code.startsWith('ERR__')) kind = 'DecodingError';
  return new HttpError('connect', repr(kind, message), { cause: error });
}

/** The connection was closed or reset under a request that had no answer yet (undici's codes, or the socket's). */
export function isConnectionReset(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/** ` (raise it with --flag)`, or nothing without a flag. */
export function raiseHint(flag: string | undefined, what: string): string {
  return flag ? ` (raise ${what} with ${flag})` : '';
}
