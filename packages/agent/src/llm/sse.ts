/**
 * A server-sent events (SSE) decoder, as the WHATWG spec reads `text/event-stream`, for model
 * providers that stream their replies. Bytes go in as they arrive, and each event is returned by the
 * same `push` that completed it: nothing is held back beyond the current unfinished line.
 *
 * Handled: lines split anywhere across chunks (also between `\r` and `\n`), `\n`, `\r\n` and `\r`
 * line ends, a leading byte-order mark, comment lines (`:`), multi-line `data` (joined with `\n`),
 * `field:value` with or without the one space after the colon, and UTF-8 characters split across
 * chunks. Unlike the spec, an event still open when the stream ends is dispatched: some servers
 * close the connection without the final blank line, and their last event is usually the one that
 * matters.
 */

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

/** A decoder for one stream (it keeps the unfinished line and event between chunks). */
export function createSseDecoder(): SseDecoder {
  const utf8 = new TextDecoder('utf-8');
  let pending = '';
  let atStart = true;
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;

  const dispatch = (out: SseEvent[]) => {
    // The spec drops an event without data (an `event:` or `id:` line alone); OpenAI-style streams never send one.
    if (data.length > 0) {
      const dispatched: SseEvent = { data: data.join('\n') };
      if (event !== undefined) dispatched.event = event;
      if (id !== undefined) dispatched.id = id;
      out.push(dispatched);
    }
    data = [];
    event = undefined;
  };

  const line = (text: string, out: SseEvent[]) => {
    if (text === '') return dispatch(out);
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    // `retry` and unknown fields are ignored: reconnecting is the caller's business.
  };

  const feed = (text: string, final: boolean): SseEvent[] => {
    const out: SseEvent[] = [];
    pending += text;
    if (atStart && pending.length > 0) {
      if (pending.charCodeAt(0) === 0xfeff) pending = pending.slice(1);
      atStart = false;
    }
    let start = 0;
    for (;;) {
      const cr = pending.indexOf('\r', start);
      const lf = pending.indexOf('\n', start);
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (end < 0) break;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next chunk to tell.
      if (end === cr && end === pending.length - 1 && !final) break;
      line(pending.slice(start, end), out);
      start = end === cr && pending[end + 1] === '\n' ? end + 2 : end + 1;
    }
    pending = pending.slice(start);
    if (final) {
      if (pending !== '') line(pending, out);
      pending = '';
      dispatch(out);
    }
    return out;
  };

  return {
    push: (chunk) => feed(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true }), false),
    end: () => feed(utf8.decode(), true),
  };
}

/** The events of a byte stream, each yielded as soon as its closing blank line has arrived. */
export async function* readSseEvents(source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = createSseDecoder();
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.end();
}
