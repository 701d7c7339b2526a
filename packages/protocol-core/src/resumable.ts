import type { EventId, EventStore, JSONRPCMessage, McpServer, RequestId, StreamId } from '@modelcontextprotocol/server';
import type { RequestContext } from './requestContext.js';

/**
 * Resumable Streamable HTTP streams (SEP-1699): a client whose SSE stream ends before the response
 * reconnects with `GET` + `Last-Event-ID` and gets the events it missed, the response included.
 *
 * The SDK's `StreamableHTTPServerTransport` does the protocol work once it has an `EventStore`; this file
 * gives it one that lives and dies with one session (`createSessionEventStore`), and lets a tool end its
 * own response stream on purpose (`closeRequestStream`) — what a long operation does to have the client
 * poll instead of holding a connection open. Types only from the SDK here: a stdio server that imports
 * protocol-core never loads the HTTP transport because of this file.
 */

export interface SessionEventStoreOptions {
  /** Events kept at most; the oldest go first. Default 1000. */
  maxEvents?: number;
  /** Total size of the kept events (their JSON, in UTF-16 code units) at most; the oldest go first. Default 8 MiB. */
  maxBytes?: number;
}

export interface SessionEventStore extends EventStore {
  /** The stream an event id belongs to; undefined for an id this store does not hold (another session's, or expired). */
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined>;
  /** Events kept now. */
  readonly size: number;
  /** Forgets every event. */
  clear(): void;
}

interface StoredEvent {
  streamId: StreamId;
  seq: number;
  message: JSONRPCMessage;
  bytes: number;
}

function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}

/**
 * An in-memory `EventStore` for ONE Streamable HTTP session: give every session's transport its own, so
 * a client can only ever replay its own events. Bounded by `maxEvents` and `maxBytes` (oldest dropped
 * first); a `Last-Event-ID` older than what is kept is refused (the SDK answers the GET with an error)
 * rather than replayed with a gap. The SDK's priming events (empty data) get ids but are never replayed.
 */
export function createSessionEventStore({
  maxEvents = 1000,
  maxBytes = 8 * 1024 * 1024,
}: SessionEventStoreOptions = {}): SessionEventStore {
  const events = new Map<EventId, StoredEvent>();
  let seq = 0;
  let bytes = 0;
  const evict = () => {
    for (const [id, event] of events) {
      if (events.size <= maxEvents && bytes <= maxBytes) return;
      events.delete(id);
      bytes -= event.bytes;
    }
  };
  return {
    get size() {
      return events.size;
    },
    clear() {
      events.clear();
      bytes = 0;
    },
    async storeEvent(streamId, message) {
      seq += 1;
      const id = `${streamId}_${seq}`;
      const size = isPriming(message) ? 2 : JSON.stringify(message).length;
      events.set(id, { streamId, seq, message, bytes: size });
      bytes += size;
      evict();
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (!last) throw new Error(`Unknown or expired event id: ${lastEventId}`);
      // Snapshot first: `send` may await while new events of the same stream are stored.
      const after = [...events.entries()].filter(([, e]) => e.streamId === last.streamId && e.seq > last.seq && !isPriming(e.message));
      for (const [id, event] of after) await send(id, event.message);
      return last.streamId;
    },
  };
}

const RESUMABLE = Symbol.for('@mcpkit/protocol-core.resumable');

/** What `markResumable` needs of a transport: the SDK's `StreamableHTTPServerTransport` has it. */
export interface ClosableStreamsTransport {
  closeSSEStream(requestId: RequestId): void;
}

/**
 * Records that `transport` was built with an `EventStore` (every SSE event it writes carries an id), so
 * `closeRequestStream` may end a request's stream for clients the SDK's own gate leaves out (below).
 * Call it right after constructing the transport.
 */
export function markResumable<T extends ClosableStreamsTransport>(transport: T): T {
  Object.defineProperty(transport, RESUMABLE, { value: true });
  return transport;
}

function resumableTransport(server: McpServer): ClosableStreamsTransport | undefined {
  const transport = server.server.transport as (Partial<ClosableStreamsTransport> & { [RESUMABLE]?: boolean }) | undefined;
  return transport?.[RESUMABLE] === true && typeof transport.closeSSEStream === 'function'
    ? (transport as ClosableStreamsTransport)
    : undefined;
}

export interface CloseRequestStreamOptions {
  /**
   * Whether this request already sent a notification on its stream (a progress or log message). With an
   * event store every event carries an id, so the client then holds one to resume from even when the
   * SDK sent it no priming event: the SDK primes (and offers `extra.http?.closeSSE`) only when the request's
   * `MCP-Protocol-Version` header is 2025-11-25 or later, but `Last-Event-ID` resumption is older
   * (2025-03-26). Default false.
   */
  eventSent?: boolean;
}

/**
 * Ends the SSE stream that will carry the response to the request being handled, while the handler goes
 * on: the client reconnects with `Last-Event-ID` and gets the rest replayed, the response included.
 * Returns whether the stream was closed. It is not (false) when that would lose the response: over stdio
 * or in-memory, over HTTP without an event store (stateless mode, legacy SSE), or when the client holds no
 * event id on this stream yet (see `eventSent`).
 */
export function closeRequestStream(
  server: McpServer,
  extra: RequestContext,
  { eventSent = false }: CloseRequestStreamOptions = {},
): boolean {
  if (extra.http?.closeSSE) {
    extra.http?.closeSSE();
    return true;
  }
  const transport = eventSent ? resumableTransport(server) : undefined;
  if (!transport) return false;
  transport.closeSSEStream(extra.mcpReq.id);
  return true;
}
