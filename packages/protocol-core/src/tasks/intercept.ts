/**
 * Lets a task-augmented `tools/call` (2025-11-25: `params.task`) be answered with a `CreateTaskResult`.
 *
 * SDK v2 removed the experimental tasks layer, and its `Server` checks every `tools/call` result, whoever
 * registered the handler: a result with `task` and no `content` is refused there ("content is required
 * when the body carries 'task'"). So the claimed requests are answered before they reach the SDK, on the
 * connected transport (its public `onmessage` callback and `send`); every other message goes on to the
 * SDK untouched.
 */
import type { JSONRPCMessage, JSONRPCRequest, Result, Transport } from '@modelcontextprotocol/server';
import { errorMessage } from '../errors.js';

export type ClaimedRequestHandler = (request: JSONRPCRequest) => Promise<Result>;

const INTERNAL_ERROR = -32603;

function errorCode(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && Number.isInteger(code) ? code : INTERNAL_ERROR;
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

/**
 * Routes the requests `claims` accepts to `handle`, answering them on `transport` with its result or
 * error; returns the function that puts the previous `onmessage` back. Call after the server connected.
 */
export function interceptRequests(
  transport: Transport,
  claims: (request: JSONRPCRequest) => boolean,
  handle: ClaimedRequestHandler,
  onSendError: (error: unknown) => void,
): () => void {
  const next = transport.onmessage;
  const answer = async (request: JSONRPCRequest) => {
    let response: JSONRPCMessage;
    try {
      response = { jsonrpc: '2.0', id: request.id, result: await handle(request) };
    } catch (error) {
      response = { jsonrpc: '2.0', id: request.id, error: { code: errorCode(error), message: errorMessage(error) } };
    }
    await transport.send(response).catch(onSendError);
  };
  transport.onmessage = (message, extra) => {
    if (isRequest(message) && claims(message)) {
      void answer(message);
      return;
    }
    next?.(message, extra);
  };
  return () => {
    transport.onmessage = next;
  };
}
