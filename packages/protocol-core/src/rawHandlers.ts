import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type AnyObjectSchema,
  getLiteralValue,
  getObjectShape,
  type SchemaOutput,
  safeParse,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Result, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { invalidRequestError } from './requestGuard.js';

/** A handler whose result goes on the wire as it is returned. */
export type RawRequestHandler<T extends AnyObjectSchema> = (
  request: SchemaOutput<T>,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
) => Result | Promise<Result>;

/**
 * Answers `schema`'s method on `server` with `handler`, whose result goes on the wire exactly as returned.
 *
 * For a drop-in replacement whose reference is a low-level `Server` with hand-written handlers, where
 * `server.server.setRequestHandler` falls short in two ways:
 * - for `tools/call`, the SDK's `Server` (SDK ≥ 1.23) re-parses the result with `CallToolResultSchema`,
 *   which drops fields the schema does not name (the reference everything server's embedded resources
 *   carry a `name`) and reorders keys. Here the result is not touched: the caller owns its validity.
 * - a request that does not match `schema` (`arguments: "x"`, `uri: 5`) fails there with code -32603 and
 *   zod's JSON issue dump. Here it is a -32602 error of one line: `Invalid <method> request: <message> at <path>`.
 * The capability check (`Server.assertRequestHandlerCapability`) still runs.
 */
export function setRawRequestHandler<T extends AnyObjectSchema>(server: McpServer, schema: T, handler: RawRequestHandler<T>): void {
  const method = getLiteralValue(getObjectShape(schema)?.method as never);
  if (typeof method !== 'string') throw new Error('setRawRequestHandler: the schema has no method literal');
  // Anything with the method goes through; the real schema is applied below, with a readable error.
  const envelope = z.looseObject({ method: z.literal(method) });
  // `Protocol.setRequestHandler` is what `Server.setRequestHandler` calls after wrapping `tools/call`;
  // called on the server itself, `Server`'s capability assertion still applies.
  Protocol.prototype.setRequestHandler.call(server.server, envelope, (request: unknown, extra: Parameters<RawRequestHandler<T>>[1]) => {
    const parsed = safeParse(schema, request);
    if (!parsed.success) {
      throw invalidRequestError(method, (parsed.error as { issues: { message: string; path?: PropertyKey[] }[] }).issues);
    }
    return handler(parsed.data as SchemaOutput<T>, extra);
  });
}
