/**
 * One inbound text (a stdio line, a WebSocket text frame) turned into the messages it holds, or the JSON-RPC
 * error it gets: not JSON → -32700 with `id: null`; an empty batch, or a message that is not a valid request or
 * notification → -32600 (with the request's id when it has a valid one); a request whose params do not match its
 * method (`paramsCheck.ts`) → -32602. A batch is taken apart, each entry on its own. A malformed response from
 * the client is reported to `error` only: there is nobody to answer. Shared by the stdio and WebSocket transports.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { ErrorCode } from '../errors.js';
import { checkMessage, type JsonRpcId } from './jsonRpcCheck.js';
import { paramsProblem } from './paramsCheck.js';

export interface InboundSink {
  /** A valid message, for the server. */
  message(message: JSONRPCMessage): void;
  /** Answer `id` with this error (the transport also tells its `onerror`). */
  reject(id: JsonRpcId, code: number, message: string, cause?: unknown): void;
  /** A problem with nobody to answer. */
  error(error: Error): void;
}

export function handleInboundText(text: string, sink: InboundSink): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    sink.reject(null, ErrorCode.ParseError, 'Parse error: the message is not valid JSON', error);
    return;
  }
  if (!Array.isArray(value)) {
    inboundMessage(value, sink);
    return;
  }
  if (value.length === 0) sink.reject(null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
  for (const entry of value) inboundMessage(entry, sink);
}

function inboundMessage(value: unknown, sink: InboundSink): void {
  const { message, problem } = checkMessage(value);
  if (message) {
    const refused = paramsProblem(message);
    if (refused) sink.reject(refused.id, refused.code, refused.message);
    else sink.message(message);
    return;
  }
  if (problem.response) sink.error(new Error(`${problem.message} (a response from the client)`));
  else sink.reject(problem.id, problem.code, problem.message);
}
