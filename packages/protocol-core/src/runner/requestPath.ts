import type { IncomingMessage } from 'node:http';

/**
 * The request's path, or `undefined` when its target does not parse: an absolute-form target such as
 * `GET http://[ HTTP/1.1` passes Node's parser but makes `new URL` throw, which in a `request` or `upgrade`
 * listener takes the whole process down.
 */
export function requestPath(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
