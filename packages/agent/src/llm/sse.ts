/**
 * Server-sent events (`text/event-stream`) for model providers that stream their replies, read
 * with `eventsource-parser` (the WHATWG rules: `\n`, `\r\n` and `\r` line ends split anywhere,
 * comments, multi-line `data`, a leading byte-order mark). This file adds what a provider needs on
 * top: bytes in (UTF-8 split across chunks), the events each `push` completed out, and, unlike the
 * spec, an event still open when the stream ends is dispatched: some servers close the connection
 * without the final blank line, and their last event is usually the one that matters.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One dispatched event. `event` is absent for the default type (`message`). */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Feed it the stream's chunks, then `end()` it; both return the events completed so far. */
export interface SseDecoder {
  push(chunk: string | Uint8Array): SseEvent[];
  end(): SseEvent[];
}

/** A decoder for one stream (the parser keeps the unfinished line and event between chunks). */
export function createSseDecoder(): SseDecoder {
  const utf8 = new TextDecoder('utf-8');
  let out: SseEvent[] = [];
  /** The last event id seen: like `EventSource.lastEventId`, it stays until another `id:` line. */
  let lastId: string | undefined;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (message.id !== undefined) lastId = message.id;
      const event: SseEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (lastId !== undefined) event.id = lastId;
      out.push(event);
    },
    // `retry` and unknown fields are ignored: reconnecting is the caller's business.
  });
  let atStart = true;
  const feed = (text: string) => {
    // The parser drops a byte-order mark only as raw bytes; ours arrive decoded (or as strings).
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text) parser.feed(text);
  };
  const take = (): SseEvent[] => {
    const events = out;
    out = [];
    return events;
  };
  return {
    push(chunk) {
      feed(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }));
      return take();
    },
    end() {
      feed(utf8.decode());
      // Close the last line and the event still open, if any (a blank line alone dispatches nothing).
      parser.feed('\n\n');
      parser.reset();
      return take();
    },
  };
}

/** The events of a byte stream, each yielded as soon as its closing blank line has arrived. */
export async function* readSseEvents(source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = createSseDecoder();
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.end();
}
