/**
 * A scripted OpenAI-compatible server for offline tests: it answers each chat-completions request
 * with the next scripted turn, streamed or whole as the request asks, and records every request so
 * that tests can check what the client sent. It listens on 127.0.0.1 on a free port; pass its
 * `baseUrl` to the client under test (in process, or to a child process).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { completionBody, errorBody, hasContent, type ReplyIdentity, streamChunks } from './openaiReplies.js';
import type { RecordedRequest, ScriptedReply, ScriptedTurn, ScriptedTurnSource } from './scriptedTurn.js';

export interface ScriptedModelOptions {
  /** The turns, one per chat-completions request, in order. More can be added with `push`. */
  turns: ScriptedTurnSource[];
  /** The model id in replies and in `GET /v1/models`. Default `scripted-model`. */
  model?: string;
  /**
   * A request after the last turn: `error` answers HTTP 500 (`scripted model: no turn left for
   * request N`), `repeat-last` plays the last turn again. Default `error`.
   */
  onExhausted?: 'error' | 'repeat-last';
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  /** Every chat-completions request received, in order (also those answered with an error). */
  readonly requests: RecordedRequest[];
  /** Adds turns after the remaining ones. */
  push(...turns: ScriptedTurnSource[]): void;
  /** Stops the server and drops open connections (hanging replies included). Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const MODELS_PATH = '/v1/models';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server. Close it with `close()` or `await using`. */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const model = options.model ?? 'scripted-model';
  const turns = [...options.turns];
  const requests: RecordedRequest[] = [];
  /** One controller per response in progress: `close()` stops their timers. */
  const inFlight = new Set<AbortController>();

  /** Waits `ms` (if any); false when the client went away meanwhile. */
  const wait = async (ms: number | undefined, signal: AbortSignal): Promise<boolean> => {
    if (ms && ms > 0) await sleep(ms, undefined, { signal }).catch(() => {});
    return !signal.aborted;
  };

  const pickTurn = (request: RecordedRequest): ScriptedTurn | undefined => {
    const source = turns[request.index] ?? (options.onExhausted === 'repeat-last' ? turns.at(-1) : undefined);
    return typeof source === 'function' ? source(request) : source;
  };

  const streamReply = async (res: ServerResponse, reply: ScriptedReply, identity: ReplyIdentity, signal: AbortSignal) => {
    if (reply.hang && !hasContent(reply)) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const events = streamChunks(reply, identity, !reply.hang).map((chunk) => JSON.stringify(chunk));
    if (!reply.hang) events.push('[DONE]');
    for (const [position, data] of events.entries()) {
      if (!(await wait(position === 0 ? reply.delayMs : reply.chunkDelayMs, signal))) return;
      res.write(`data: ${data}\n\n`);
    }
    if (!reply.hang) res.end();
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, turn: ScriptedTurn, request: RecordedRequest, signal: AbortSignal) => {
    const stream = request.body?.stream === true;
    if ('disconnect' in turn) {
      req.socket.destroy();
      return;
    }
    if ('raw' in turn) {
      res.writeHead(turn.status ?? 200, { 'content-type': turn.contentType ?? (stream ? 'text/event-stream' : 'application/json') });
      for (const [position, part] of (Array.isArray(turn.raw) ? turn.raw : [turn.raw]).entries()) {
        if (position > 0 && !(await wait(turn.chunkDelayMs, signal))) return;
        res.write(part);
      }
      res.end();
      return;
    }
    if ('status' in turn) {
      const headers: Record<string, string> = turn.retryAfter === undefined ? {} : { 'retry-after': String(turn.retryAfter) };
      sendJson(res, turn.status, errorBody(turn.status, turn.message ?? `scripted model: HTTP ${turn.status}`), headers);
      return;
    }
    const identity: ReplyIdentity = {
      id: `chatcmpl-scripted-${request.index + 1}`,
      model: typeof request.body?.model === 'string' ? request.body.model : model,
      created: Math.floor(Date.now() / 1000),
      requestNumber: request.index + 1,
    };
    if (stream) return streamReply(res, turn, identity, signal);
    if (turn.hang || !(await wait(turn.delayMs, signal))) return;
    sendJson(res, 200, completionBody(turn, identity));
  };

  const handleChat = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendJson(res, 400, errorBody(400, 'scripted model: the request body is not JSON'));
      return;
    }
    const request: RecordedRequest = {
      index: requests.length,
      method: req.method ?? 'POST',
      path: req.url ?? '',
      headers: req.headers,
      body,
    };
    requests.push(request);
    let turn: ScriptedTurn | undefined;
    try {
      turn = pickTurn(request);
    } catch (error) {
      sendJson(
        res,
        500,
        errorBody(500, `scripted model: the turn function threw: ${error instanceof Error ? error.message : String(error)}`),
      );
      return;
    }
    if (!turn) {
      sendJson(res, 500, errorBody(500, `scripted model: no turn left for request ${request.index + 1}`));
      return;
    }
    await answer(req, res, turn, request, signal);
  };

  const server = createServer((req, res) => {
    const controller = new AbortController();
    inFlight.add(controller);
    res.on('close', () => {
      controller.abort();
      inFlight.delete(controller);
    });
    const path = (req.url ?? '').split('?')[0];
    let handled: Promise<void>;
    if (req.method === 'POST' && path === CHAT_PATH) handled = handleChat(req, res, controller.signal);
    else if (req.method === 'GET' && path === MODELS_PATH) {
      sendJson(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'mcpkit' }] });
      handled = Promise.resolve();
    } else {
      sendJson(res, 404, errorBody(404, `scripted model: no route for ${req.method} ${req.url}`));
      handled = Promise.resolve();
    }
    handled.catch((error: unknown) => {
      // A failure here is a bug in the scripted model or a broken connection: the client sees a dropped socket.
      res.destroy(error instanceof Error ? error : undefined);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      for (const controller of inFlight) controller.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...more) => {
      turns.push(...more);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
