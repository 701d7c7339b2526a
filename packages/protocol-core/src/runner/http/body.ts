/**
 * The request-body half of the HTTP runner: reads a POST body under the size cap, parses it, and refuses
 * what is not JSON-RPC before any transport or the SDK sees it, each refusal a JSON-RPC error with the
 * HTTP status to send it with.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { ErrorCode } from '../../errors.js';
import { bodyProblem, type JsonRpcId } from '../jsonRpcCheck.js';
import { paramsProblem } from '../paramsCheck.js';

/** A refusal to answer with `sendJsonRpcError`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** The id of the request refused, when it has a valid one. */
    readonly id: JsonRpcId = null,
  ) {
    super(message);
  }
}

export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: JsonRpcId = null,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

/**
 * Whether `req` announced a body that has not been read to its end (refused before the read, or cut off by the
 * size cap): the answer then closes the connection, so the rest is never read (Node would read it to throw it away).
 */
export function unreadBody(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  const length = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || (Number.isFinite(length) ? length > 0 : true);
}

async function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new HttpError(413, ErrorCode.InvalidRequest, `Request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new HttpError(413, ErrorCode.InvalidRequest, `Request body exceeds ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The client went away or was cut off (request timeout) mid-body; nobody is left to answer.
    throw new HttpError(400, ErrorCode.InvalidRequest, 'Bad Request: the request body was not received completely');
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The parsed JSON-RPC body of a POST: 413 over `limit`, 400 -32700 when it is not JSON, 400 -32600 (with
 * the request's id) when it is not JSON-RPC (the SDK would answer -32700 without the id, or plain text for
 * SSE). The runner then checks the params (`checkParams`: 200 -32602 of one line for a single request whose
 * params do not match its method, `paramsCheck.ts`) once the auth guard has looked at the body.
 */
export async function readJsonRpcBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readText(req, limit);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: the request body is not valid JSON');
  }
  const problem = bodyProblem(body);
  if (problem) throw new HttpError(400, problem.code, problem.message, problem.id);
  return body;
}

/** The second half of `readJsonBody`: a single request whose params do not match its method gets 200 -32602. */
export function checkParams(body: unknown): void {
  const refused = Array.isArray(body) ? undefined : paramsProblem(body as JSONRPCMessage);
  if (refused) throw new HttpError(200, refused.code, refused.message, refused.id);
}
