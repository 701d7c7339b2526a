/**
 * What the scripted model answers, one turn per request, and what it records of each request.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** One request the scripted model received, as the client sent it. */
export interface RecordedRequest {
  /** Position in `requests` (0 for the first request). */
  index: number;
  method: string;
  /** The request path, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names are lower-case (`authorization`, `content-type`, …). */
  headers: IncomingHttpHeaders;
  /**
   * The parsed JSON body (`model`, `messages`, `tools`, `stream`, `max_tokens`, …). Typed loosely
   * on purpose: tests read whatever part of the wire format they check.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the body is whatever the client sent; tests pick it apart.
  body: any;
}

/** A native tool call in a scripted reply. */
export interface ScriptedToolCall {
  /** The call id. Default: `call_<request number>_<position>` (e.g. `call_1_1`). */
  id?: string;
  name: string;
  /** JSON text sent as it is (it may be malformed on purpose), or an object sent as its JSON. */
  arguments: string | Record<string, unknown>;
  /**
   * Streaming: split the arguments text into this many deltas (at most one character each),
   * after a first delta with the id and name. Default 1.
   */
  chunks?: number;
}

/**
 * A model reply. Streamed (when the request says `stream: true`) as OpenAI does: one SSE event per
 * text piece, reasoning piece and tool-call delta (the first one carries `role: "assistant"`), a last
 * choice chunk with `finish_reason`, a chunk with `usage` (when given) and `data: [DONE]`. Otherwise
 * one `chat.completion` JSON body with the same content. Text-mode tool calls are simply text.
 */
export interface ScriptedReply {
  /** The visible text. An array is sent as separate SSE events, one per element. */
  text?: string | string[];
  /** `reasoning_content` deltas (a thinking model's thoughts), sent before the text. */
  reasoning?: string | string[];
  toolCalls?: ScriptedToolCall[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. Any string is sent as it is. */
  finishReason?: string;
  usage?: { promptTokens?: number; completionTokens?: number };
  /** Wait before the first event (streaming: after the response headers) or before the JSON body. */
  delayMs?: number;
  /** Streaming: wait between consecutive SSE events. */
  chunkDelayMs?: number;
  /**
   * Never finish: stream the content events, then keep the connection open without the finish
   * chunk or `[DONE]` until the client goes away. Without any content (`{ hang: true }`), or for a
   * non-streaming request, nothing at all is sent, not even the headers. For cancellation tests.
   */
  hang?: boolean;
}

/** An HTTP error: `{ error: { message, type, code } }` with this status. */
export interface ScriptedHttpError {
  status: number;
  /** Default: `scripted model: HTTP <status>`. */
  message?: string;
  /** Sent as `Retry-After` (seconds; fractions are sent as they are, which the client accepts). */
  retryAfter?: number;
}

/** A response written byte for byte, for what the other shapes cannot say (broken streams, HTML pages…). */
export interface ScriptedRawResponse {
  /** The body; an array is written in separate writes (after `chunkDelayMs` each). */
  raw: string | string[];
  /** Default 200. */
  status?: number;
  /** Default: `text/event-stream` when the request asked to stream, else `application/json`. */
  contentType?: string;
  chunkDelayMs?: number;
}

/** Drop the connection without answering (the client sees a reset socket). */
export interface ScriptedDisconnect {
  disconnect: true;
}

/** What the scripted model does with one chat-completions request. */
export type ScriptedTurn = ScriptedReply | ScriptedHttpError | ScriptedRawResponse | ScriptedDisconnect;

/** A turn, or a function that picks it from the request (called when that request arrives). */
export type ScriptedTurnSource = ScriptedTurn | ((request: RecordedRequest) => ScriptedTurn);
