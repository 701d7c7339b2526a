/**
 * The server side of one WebSocket connection as an SDK `Transport`: one JSON-RPC message per text frame, each
 * way. Inbound text goes through the same checks as a stdio line (`jsonRpcInbound.ts`: -32700 for text that is
 * not JSON, -32600/-32602 for a message that is not a valid one); a binary frame closes the connection with 1003
 * (unsupported data). A frame over the server's cap never reaches here: `ws` closes the connection with 1009.
 * `onclose` fires once: when the socket has closed, or when `close` was called.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { RawData, WebSocket } from 'ws';
import type { JsonRpcId } from './jsonRpcCheck.js';
import { handleInboundText, type InboundSink } from './jsonRpcInbound.js';

/** RFC 6455 §7.4.1: the endpoint received a type of data it cannot accept. */
const CLOSE_UNSUPPORTED_DATA = 1003;

export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private started = false;
  private closed = false;

  constructor(private readonly socket: WebSocket) {}

  private readonly sink: InboundSink = {
    message: (message) => this.onmessage?.(message),
    reject: (id, code, message, cause) => this.reject(id, code, message, cause),
    error: (error) => this.onerror?.(error),
  };

  private readonly onFrame = (data: RawData, isBinary: boolean): void => {
    if (isBinary) {
      this.onerror?.(new Error('a binary WebSocket frame: MCP messages are text frames'));
      this.socket.close(CLOSE_UNSUPPORTED_DATA, 'MCP messages are text frames');
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    if (text.trim() === '') return;
    handleInboundText(text, this.sink);
  };

  private readonly onSocketError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onSocketClose = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    this.onclose?.();
  };

  private detach(): void {
    this.socket.off('message', this.onFrame);
    this.socket.off('error', this.onSocketError);
    this.socket.off('close', this.onSocketClose);
  }

  private reject(id: JsonRpcId, code: number, message: string, cause?: unknown): void {
    this.onerror?.(new Error(message, cause === undefined ? undefined : { cause }));
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('WebSocketServerTransport already started');
    this.started = true;
    this.socket.on('message', this.onFrame);
    this.socket.on('error', this.onSocketError);
    this.socket.on('close', this.onSocketClose);
  }

  /** Resolves once the frame is written to the socket; rejects when the connection is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.socket.readyState !== this.socket.OPEN) {
        reject(new Error('the WebSocket connection is closed'));
        return;
      }
      this.socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Sends the close frame (1000) and is done: the closing handshake finishes on its own (or the runner cuts it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    this.socket.close(1000);
    this.onclose?.();
  }
}
