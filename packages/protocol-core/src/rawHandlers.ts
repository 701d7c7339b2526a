import type { McpServer, Result } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { type RequestExtra, toRequestExtra } from './requestExtra.js';
import { invalidRequestError } from './requestGuard.js';

/** A spec request schema from `@modelcontextprotocol/core` (`CallToolRequestSchema`, …): a zod object with a `method` literal. */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> } & z.ZodRawShape>;

/** A handler whose result goes on the wire as it is returned. */
export type RawRequestHandler<T extends RequestSchema> = (request: z.output<T>, extra: RequestExtra) => Result | Promise<Result>;

/**
 * Answers `schema`'s method on `server` with `handler`, for a drop-in replacement whose reference is a
 * low-level `Server` with hand-written handlers. A request that does not match `schema` is a -32602 error
 * of one line: `Invalid <method> request: <message> at <path>`.
 *
 * v1 reached past `Server.setRequestHandler` (to `Protocol.prototype`) so that `tools/call` results were not
 * re-parsed; v2's `Server` wraps `tools/call` through its `_wrapHandler` hook, which this goes through.
 */
export function setRawRequestHandler<T extends RequestSchema>(server: McpServer, schema: T, handler: RawRequestHandler<T>): void {
  const method = schema.shape.method.value;
  if (typeof method !== 'string') throw new Error('setRawRequestHandler: the schema has no method literal');
  server.server.setRequestHandler(method as never, ((request: unknown, context: Parameters<typeof toRequestExtra>[0]) => {
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw invalidRequestError(method, parsed.error.issues);
    return handler(parsed.data, toRequestExtra(context));
  }) as never);
}
