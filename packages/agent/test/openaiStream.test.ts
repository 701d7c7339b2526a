/** The pieces under the OpenAI client's stream: the SSE decoder and the tool-call assembler. */
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from '../src/llm/sse.js';
import { createToolCallAssembler, type ToolCallDelta } from '../src/llm/toolCallAssembler.js';

describe('SSE decoder', () => {
  const stream = '\uFEFF: a comment\r\ndata: {"a":1}\r\n\r\nevent: error\ndata:first\ndata:  second\nid: 7\n\n\rdata: cr\r\rdata: last';
  const expected: SseEvent[] = [
    { data: '{"a":1}' },
    { event: 'error', data: 'first\n second', id: '7' },
    { data: 'cr', id: '7' },
    { data: 'last', id: '7' },
  ];

  it('reads comments, CRLF and CR line ends, multi-line data, fields and an unterminated last event', () => {
    const decoder = createSseDecoder();
    expect([...decoder.push(stream), ...decoder.end()]).toEqual(expected);
  });

  it('gives the same events however the stream is cut, including between \\r and \\n', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = createSseDecoder();
      const events = [...decoder.push(stream.slice(0, cut)), ...decoder.push(stream.slice(cut)), ...decoder.end()];
      expect(events, `cut at ${cut}`).toEqual(expected);
    }
    const decoder = createSseDecoder();
    const oneByOne = [...stream].flatMap((char) => decoder.push(char));
    expect([...oneByOne, ...decoder.end()]).toEqual(expected);
  });

  it('returns an event from the push that completes it, and decodes UTF-8 split across byte chunks', () => {
    const decoder = createSseDecoder();
    const bytes = new TextEncoder().encode('data: héllo 🙂\n\n');
    const split = bytes.indexOf(0xf0) + 2;
    expect(decoder.push(bytes.subarray(0, split))).toEqual([]);
    expect(decoder.push(bytes.subarray(split))).toEqual([{ data: 'héllo 🙂' }]);
    expect(decoder.end()).toEqual([]);
  });
});

describe('tool-call assembly', () => {
  const assemble = (deltas: Omit<ToolCallDelta, 'position'>[]) => {
    const assembler = createToolCallAssembler();
    for (const delta of deltas) assembler.add({ position: 0, ...delta });
    return assembler.finish();
  };

  it('orders calls by index and joins argument pieces', () => {
    expect(
      assemble([
        { index: 1, id: 'b', name: 'two', arguments: '' },
        { index: 0, id: 'a', name: 'one', arguments: '{"x"' },
        { index: 1, arguments: '{}' },
        { index: 0, arguments: ':1}' },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{"x":1}' },
      { id: 'b', name: 'two', arguments: '{}' },
    ]);
  });

  it('copes with servers that reuse index 0, omit indexes, repeat names or send objects', () => {
    expect(
      assemble([
        { index: 0, id: 'a', name: 'one', arguments: { q: 1 } },
        { index: 0, id: 'b', name: 'two', arguments: '' },
        { index: 0, name: 'two', arguments: '{"r":' },
        { index: 0, id: 'b', arguments: '2}' },
      ]),
    ).toEqual([
      { id: 'a', name: 'one', arguments: '{"q":1}' },
      { id: 'b', name: 'two', arguments: '{"r":2}' },
    ]);
    const [first, second, ...rest] = assemble([
      { id: 'x', name: 'n' },
      { arguments: '{"k":' },
      { arguments: 'true}' },
      { name: 'm' },
      { id: 'y', name: 'o' },
    ]);
    expect(rest).toEqual([]);
    expect(first).toEqual({ id: 'x', name: 'nm', arguments: '{"k":true}' });
    expect(second).toEqual({ id: 'y', name: 'o', arguments: '{}' });
  });
});
