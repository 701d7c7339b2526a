/**
 * The server side of stdio: newline-delimited JSON-RPC on stdin/stdout, like the SDK's
 * `StdioServerTransport`, except that bad input gets the answer JSON-RPC 2.0 names instead of silence
 * (the SDK reports it to `onerror` only, so the client waits for its own timeout):
 * - a line that is not JSON: -32700 Parse error, `id: null`;
 * - an object that is not a valid request or notification (`jsonrpc` not "2.0", `method` not a string,
 *   `params` not an object, an `id` that is not a string or an integer), an empty batch or a batch entry
 *   that is not an object: -32600 Invalid Request, with the request's id when it has a valid one, else
 *   `id: null`;
 * - a line longer than `maxLineBytes`: dropped up to its end, answered -32600 with `id: null`, and the
 *   session goes on (the SDK's transport closes instead);
 * - a request whose params do not match its method (`paramsCheck.ts`): -32602 of one line naming the field.
 * A non-empty batch is taken apart, each entry answered on its own line (MCP since 2025-06-18 has no
 * batches; an SDK client reads one message per line). A malformed response from the client is reported to
 * `onerror` only: there is nothing to answer.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { ErrorCode } from '../errors.js';
import { CLIENT_MESSAGE_LIMIT_BYTES } from '../size.js';
import type { RequestCounter } from './drain.js';
import type { JsonRpcId } from './jsonRpcCheck.js';
import { handleInboundText, type InboundSink } from './jsonRpcInbound.js';

export interface StdioTransportOptions {
  /** Longest line accepted, in bytes. Default 10 MiB, as the SDK's. */
  maxLineBytes?: number;
  /** Counts the client's requests until answered, for a drain (`drain.ts`); one it refuses is answered -32000. */
  counter?: RequestCounter;
  /** A JSON-RPC error to answer a message with instead of passing it on (`ServerApp.preflight`). */
  preflight?: (message: unknown) => { code: number; message: string; data?: unknown } | undefined;
}

export class JsonRpcStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxLineBytes: number;
  private readonly counter: RequestCounter | undefined;
  private readonly preflight: StdioTransportOptions['preflight'];
  private chunks: Buffer[] = [];
  private size = 0;
  /** Skipping the rest of a line that was too long. */
  private skipping = false;
  private started = false;
  /** The pending flush of the corked writes of this turn (see `write`). */
  private flushed: Promise<void> | undefined;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    { maxLineBytes = CLIENT_MESSAGE_LIMIT_BYTES, counter, preflight }: StdioTransportOptions = {},
  ) {
    this.maxLineBytes = maxLineBytes;
    this.counter = counter;
    this.preflight = preflight;
  }

  private readonly onData = (data: Buffer | string): void => {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.size === 0 && !this.skipping && nl - start <= this.maxLineBytes) {
        // The whole line is in this chunk (the usual case): decode it in place, no copy.
        this.line(chunk.toString('utf8', start, nl));
      } else {
        this.append(chunk.subarray(start, nl));
        if (this.skipping) this.skipping = false;
        else this.line(Buffer.concat(this.chunks, this.size).toString('utf8'));
        this.chunks = [];
        this.size = 0;
      }
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxLineBytes) {
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
      this.reject(null, ErrorCode.InvalidRequest, `Invalid Request: the message is larger than ${this.maxLineBytes} bytes`);
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }

  private line(text: string): void {
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim() === '') return;
    handleInboundText(trimmed, this.sink);
  }

  private readonly sink: InboundSink = {
    message: (message) => {
      // While draining (SIGTERM), a new request is refused; answers and notifications still go through.
      if (this.counter && !this.counter.received(message))
        this.reject('id' in message ? (message.id as JsonRpcId) : null, ErrorCode.ServerError, 'the server is shutting down');
      else if (!this.refusedBeforeSdk(message)) this.onmessage?.(message);
    },
    reject: (id, code, message, cause) => this.reject(id, code, message, cause),
    error: (error) => this.onerror?.(error),
  };

  /** Answers with the app's `preflight` error instead of passing the message on, when it has one. */
  private refusedBeforeSdk(message: JSONRPCMessage): boolean {
    const error = 'id' in message && 'method' in message ? this.preflight?.(message) : undefined;
    if (!error) return false;
    void this.send({ jsonrpc: '2.0', id: (message as { id: JsonRpcId & (string | number) }).id, error });
    return true;
  }

  /** Answers a message that cannot be handled, and tells `onerror`. */
  private reject(id: JsonRpcId, code: number, message: string, cause?: unknown): void {
    this.onerror?.(new Error(message, cause === undefined ? undefined : { cause }));
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  /**
   * Writes `text` corked: every message written in the same turn of the event loop (the answers to a burst
   * of requests) leaves in one `writev` when the turn's microtasks are done, instead of one system call
   * each. Resolves once the text has been handed to the stream (after the flush, or at `drain` when the
   * stream's buffer was full), so `await send()` still means "written".
   */
  private write(text: string): Promise<void> {
    this.flushed ??= new Promise<void>((resolve) => {
      this.stdout.cork();
      process.nextTick(() => {
        this.flushed = undefined;
        this.stdout.uncork();
        resolve();
      });
    });
    const flushed = this.flushed;
    if (this.stdout.write(text)) return flushed;
    return new Promise((resolve) => this.stdout.once('drain', resolve));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('JsonRpcStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.write(`${JSON.stringify(message)}\n`);
    } finally {
      this.counter?.sent(message);
    }
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.counter?.closed();
    this.onclose?.();
  }
}
