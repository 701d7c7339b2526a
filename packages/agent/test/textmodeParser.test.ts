import { describe, expect, it } from 'vitest';
import { createTextModeParser, type ParsedCall } from '../src/textmode/index.js';

interface Fed {
  shown: string;
  calls: ParsedCall[];
}

/**
 * Feed `chunks` to a fresh parser. After every push the text shown so far must be a prefix of
 * `expectedShown` (nothing is shown that later turns out to be markup, nothing is shown twice).
 */
function feed(chunks: readonly string[], expectedShown?: string): Fed {
  const parser = createTextModeParser();
  let shown = '';
  for (const chunk of chunks) {
    shown += parser.push(chunk);
    if (expectedShown !== undefined && !expectedShown.startsWith(shown)) {
      throw new Error(
        `shown ${JSON.stringify(shown)} is not a prefix of ${JSON.stringify(expectedShown)} (chunks ${JSON.stringify(chunks)})`,
      );
    }
  }
  shown += parser.end();
  return { shown, calls: parser.calls.map((c) => ({ ...c })) };
}

const ENTITIES = '{"entities": [{"name": "Ada", "entityType": "person", "observations": ["a < b", "</b>"]}]}';

interface Case {
  title: string;
  reply: string;
  shown: string;
  calls: { name: string; arguments: unknown }[];
  /** The reply holds call markup: no piece of it may ever be shown. */
  markup: boolean;
}

const cases: Case[] = [
  {
    title: 'text only',
    reply: 'Hello, world.\nNothing to call here.',
    shown: 'Hello, world.\nNothing to call here.',
    calls: [],
    markup: false,
  },
  {
    title: 'text + call + text',
    reply: `Saving. <tool_call>\n{"name": "memory__create_entities", "arguments": ${ENTITIES}}\n</tool_call>\nDone.`,
    shown: 'Saving. Done.',
    calls: [{ name: 'memory__create_entities', arguments: JSON.parse(ENTITIES) }],
    markup: true,
  },
  {
    title: 'two calls',
    reply:
      'Two:\n<tool_call>{"name":"a__x","arguments":{"q":1}}</tool_call>\n<tool_call>\n{"name": "b__y", "arguments": {}}\n</tool_call>\n\nBoth sent.',
    shown: 'Two:\nBoth sent.',
    calls: [
      { name: 'a__x', arguments: { q: 1 } },
      { name: 'b__y', arguments: {} },
    ],
    markup: true,
  },
  {
    title: 'call at the start',
    reply: '<tool_call>{"name": "a__x", "arguments": {"s": "x"}}</tool_call>\n\nAfter.',
    shown: 'After.',
    calls: [{ name: 'a__x', arguments: { s: 'x' } }],
    markup: true,
  },
  {
    title: 'call at the end',
    reply: 'Before.\n<tool_call>\n{"name": "a__x", "arguments": {"s": "a < b </tool"}}\n</tool_call>\n',
    shown: 'Before.\n',
    calls: [{ name: 'a__x', arguments: { s: 'a < b </tool' } }],
    markup: true,
  },
  {
    title: 'only a call',
    reply: '<tool_call>{"name": "a__x"}</tool_call>',
    shown: '',
    calls: [{ name: 'a__x', arguments: {} }],
    markup: true,
  },
  {
    title: '< in prose and html',
    reply: 'If a < b and b > c, then <b>bold</b>, <br/>, </em>, <<, <t, </t, <tool and </tool_ stay. x<y',
    shown: 'If a < b and b > c, then <b>bold</b>, <br/>, </em>, <<, <t, </t, <tool and </tool_ stay. x<y',
    calls: [],
    markup: false,
  },
  {
    title: '<tool_callx> is text',
    reply: 'Use <tool_callx> or <tool_call > or </tool_callx> as text.',
    shown: 'Use <tool_callx> or <tool_call > or </tool_callx> as text.',
    calls: [],
    markup: false,
  },
  {
    title: 'a < right before a call',
    reply: 'a <<tool_call>{"name": "a__x", "arguments": {}}</tool_call> b',
    shown: 'a <b',
    calls: [{ name: 'a__x', arguments: {} }],
    markup: true,
  },
  {
    title: 'a stray </tool_call> is removed',
    reply: 'ok </tool_call>\n fine',
    shown: 'ok fine',
    calls: [],
    markup: true,
  },
  {
    title: 'an escaped closing tag inside the JSON',
    reply: 'Writing.<tool_call>{"name": "fs__write", "arguments": {"text": "<\\/tool_call> and <tool_call>"}}</tool_call>',
    shown: 'Writing.',
    calls: [{ name: 'fs__write', arguments: { text: '</tool_call> and <tool_call>' } }],
    markup: true,
  },
];

function summary(fed: Fed) {
  return {
    shown: fed.shown,
    calls: fed.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.error ? c.arguments : JSON.parse(c.arguments), error: c.error })),
  };
}

describe('text-mode parser: any chunking gives the same result', () => {
  for (const c of cases) {
    it(c.title, () => {
      const whole = feed([c.reply], c.shown);
      expect(whole.shown).toBe(c.shown);
      expect(whole.calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }))).toEqual(c.calls);
      expect(whole.calls.every((call) => call.error === undefined)).toBe(true);
      expect(whole.calls.map((call) => call.id)).toEqual(c.calls.map((_, i) => `call_${i + 1}`));
      if (c.markup) {
        expect(c.shown).not.toMatch(/tool_call|<\/?tool|_call>/);
        expect(c.reply).toContain('tool_call>');
      }
      const expected = summary(whole);
      for (let k = 0; k <= c.reply.length; k++) {
        expect(summary(feed([c.reply.slice(0, k), c.reply.slice(k)], c.shown)), `split at ${k}`).toEqual(expected);
      }
      expect(summary(feed([...c.reply], c.shown))).toEqual(expected);
      // Three pieces: every tag is split twice somewhere in the sweep.
      for (let k = 1; k < c.reply.length - 2; k += 3) {
        const chunks = [c.reply.slice(0, k), c.reply.slice(k, k + 2), c.reply.slice(k + 2)];
        expect(summary(feed(chunks, c.shown)), `pieces ${JSON.stringify(chunks)}`).toEqual(expected);
      }
    });
  }

  it('the prefix check itself catches text shown too early', () => {
    expect(() => feed(['abc'], 'xyz')).toThrow(/not a prefix/);
  });
});

describe('text-mode parser: latency', () => {
  it('plain text comes back from the same push, whole', () => {
    const parser = createTextModeParser();
    for (const chunk of ['Hello', ', ', 'world.\n', '  indented ', 'a > b ', '{"json": true}', '\n\n']) {
      expect(parser.push(chunk)).toBe(chunk);
    }
    expect(parser.end()).toBe('');
  });

  it('a < is held only until the next character decides it', () => {
    const parser = createTextModeParser();
    expect(parser.push('a <')).toBe('a ');
    expect(parser.push(' b')).toBe('< b');
    expect(parser.push(' <b')).toBe(' <b');
    expect(parser.push('>x</')).toBe('>x');
    expect(parser.push('b>')).toBe('</b>');
    expect(parser.push('<tool_ca')).toBe('');
    expect(parser.push('ll')).toBe('');
    expect(parser.push('ed it')).toBe('<tool_called it');
    expect(parser.end()).toBe('');
    expect(parser.calls).toEqual([]);
  });

  it('text after a call comes out as soon as it is visible; the whitespace after the block is dropped', () => {
    const parser = createTextModeParser();
    expect(parser.push('Hi ')).toBe('Hi ');
    expect(parser.push('<tool_call>{"name": "a__x", "arguments": {}}</tool_call>')).toBe('');
    expect(parser.calls).toHaveLength(1);
    expect(parser.push('\n \n')).toBe('');
    expect(parser.push('\nThere')).toBe('There');
    expect(parser.push(' and\n')).toBe(' and\n');
    expect(parser.end()).toBe('');
  });

  it('the call is available as soon as its closing tag is read', () => {
    const parser = createTextModeParser();
    parser.push('<tool_call>{"name": "a__x", "arguments": {}}</tool_cal');
    expect(parser.calls).toHaveLength(0);
    parser.push('l>');
    expect(parser.calls).toEqual([{ id: 'call_1', name: 'a__x', arguments: '{}' }]);
  });

  // A bound on work, not on time: the reply is sized so that a parser re-reading what it has already seen (the held
  // text, the body so far, the reply so far) would not finish within the test's timeout (20 s): 600,000 one-character
  // pushes are ~6e5 steps when each character is looked at a bounded number of times, ~1.8e11 when each push re-reads.
  // What it holds back is bounded too: at most a closing tag's length of prose is ever waiting to be shown. The loop
  // yields every 10,000 characters, so that the timeout can stop a parser that does not finish.
  it('is linear: long replies in one-character chunks', async () => {
    const prose = 'a < b, <b>x</b> and <to do> '.repeat(8000);
    const args = JSON.stringify({ text: 'y <x> </t '.repeat(20000) });
    const block = `<tool_call>{"name": "a__x", "arguments": ${args}}</tool_call>`;
    const reply = `${prose}${block}${prose}`;
    expect(reply.length).toBeGreaterThan(600_000);
    const parser = createTextModeParser();
    let shown = '';
    let fed = 0;
    let mostHeld = 0;
    for (const char of reply) {
      shown += parser.push(char);
      fed++;
      if (fed % 10_000 === 0) await new Promise((resolve) => setImmediate(resolve));
      const visibleFed = fed <= prose.length ? fed : fed >= prose.length + block.length ? fed - block.length : undefined;
      if (visibleFed !== undefined) mostHeld = Math.max(mostHeld, visibleFed - shown.length);
    }
    shown += parser.end();
    expect(shown).toBe(prose + prose);
    expect(parser.calls[0]?.arguments).toBe(args);
    expect(mostHeld).toBeGreaterThan(0);
    expect(mostHeld).toBeLessThanOrEqual('</tool_call>'.length);
  });
});

function one(reply: string): { shown: string; call: ParsedCall } {
  const fed = feed([reply]);
  expect(fed.calls).toHaveLength(1);
  // The same result in one-character chunks.
  expect(summary(feed([...reply]))).toEqual(summary(fed));
  return { shown: fed.shown, call: fed.calls[0]! };
}

describe('text-mode parser: malformed calls go to the model as errors, never to the user', () => {
  it('bad JSON: the position is named, the raw text kept, nothing shown', () => {
    const { shown, call } = one('Let me look. <tool_call>{"name": "memory__read_graph", "arguments": {</tool_call>');
    expect(shown).toBe('Let me look. ');
    expect(call).toMatchObject({ id: 'call_1', name: '', arguments: '{"name": "memory__read_graph", "arguments": {' });
    // V8 words it "… at position 45" (Node 20) or "… at position 45 (line 1 column 46)" (Node 22).
    expect(call.error).toMatch(/^the text inside <tool_call> is not valid JSON \(.*position \d+( \(line \d+ column \d+\))?\)$/);
  });

  it('missing name', () => {
    const { shown, call } = one('<tool_call>{"arguments": {"q": 1}}</tool_call>');
    expect(shown).toBe('');
    expect(call.name).toBe('');
    expect(call.arguments).toBe('{"arguments": {"q": 1}}');
    expect(call.error).toMatch(/no "name"/);
  });

  it('name not a string, or empty', () => {
    expect(one('<tool_call>{"name": 3, "arguments": {}}</tool_call>').call.error).toMatch(/"name" must be .* string, not 3/);
    expect(one('<tool_call>{"name": "  ", "arguments": {}}</tool_call>').call.error).toMatch(/"name" must be/);
  });

  it('unterminated at the end of the reply', () => {
    const { shown, call } = one('Checking. <tool_call>\n{"name": "a__x", "argu');
    expect(shown).toBe('Checking. ');
    expect(call).toMatchObject({ name: '', arguments: '{"name": "a__x", "argu' });
    expect(call.error).toMatch(/unterminated <tool_call> at the end of the reply/);
  });

  it('unterminated, cut inside the closing tag', () => {
    const { call } = one('<tool_call>{"name": "a__x", "arguments": {}}</tool_ca');
    expect(call.arguments).toBe('{"name": "a__x", "arguments": {}}</tool_ca');
    expect(call.error).toMatch(/unterminated/);
  });

  it('an opening tag cut off by the end of the reply is an unterminated call', () => {
    for (const cut of ['<t', '<tool_', '<tool_call']) {
      const { shown, call } = one(`Checking. ${cut}`);
      expect(shown).toBe('Checking. ');
      expect(call.error).toMatch(/unterminated/);
    }
  });

  it('a lone < or </ at the end is text; a cut-off closing tag is dropped', () => {
    expect(feed(['a <'])).toEqual({ shown: 'a <', calls: [] });
    expect(feed(['a </'])).toEqual({ shown: 'a </', calls: [] });
    expect(feed(['done </tool'])).toEqual({ shown: 'done ', calls: [] });
  });

  it('arguments that are not an object: the name is kept', () => {
    const array = one('<tool_call>{"name": "a__x", "arguments": [1, 2]}</tool_call>').call;
    expect(array).toMatchObject({ name: 'a__x', arguments: '[1,2]' });
    expect(array.error).toMatch(/"arguments" of a__x must be a JSON object, not an array/);
    expect(one('<tool_call>{"name": "a__x", "arguments": 5}</tool_call>').call.error).toMatch(/not a number/);
    const text = one('<tool_call>{"name": "a__x", "arguments": "{oops"}</tool_call>').call;
    expect(text).toMatchObject({ name: 'a__x', arguments: '"{oops"' });
    expect(text.error).toMatch(/is a string that is not valid JSON/);
    expect(one('<tool_call>{"name": "a__x", "arguments": "[1]"}</tool_call>').call.error).toMatch(/not an array/);
  });

  it('not an object, or empty', () => {
    expect(one('<tool_call>[{"name": "a__x"}]</tool_call>').call.error).toMatch(/is an array/);
    expect(one('<tool_call>"a__x"</tool_call>').call.error).toMatch(/is a string/);
    expect(one('<tool_call>\n  \n</tool_call>').call.error).toMatch(/block is empty/);
    expect(one('<tool_call>```json\n```</tool_call>').call.error).toMatch(/block is empty/);
  });

  it('a second <tool_call> before the first is closed is named in the error', () => {
    const { call } = one('<tool_call>{"name": "a__x"\n<tool_call>{"name": "a__y", "arguments": {}}</tool_call>');
    expect(call.error).toMatch(/not valid JSON.*a new <tool_call> started before this one was closed/);
  });

  it('ids count malformed and good calls alike, in order; a new parser starts again', () => {
    const fed = feed(['<tool_call>{</tool_call><tool_call>{"name": "a__x"}</tool_call>x<tool_call>']);
    expect(fed.shown).toBe('x');
    expect(fed.calls.map((c) => [c.id, c.name, c.error !== undefined])).toEqual([
      ['call_1', '', true],
      ['call_2', 'a__x', false],
      ['call_3', '', true],
    ]);
    expect(feed(['<tool_call>{"name": "b__y"}</tool_call>']).calls[0]?.id).toBe('call_1');
  });

  it('nextId supplies the ids', () => {
    let n = 10;
    const parser = createTextModeParser({ nextId: () => `t${n++}` });
    parser.push('<tool_call>{"name": "a__x"}</tool_call><tool_call>{"name": "a__y"}</tool_call>');
    parser.end();
    expect(parser.calls.map((c) => c.id)).toEqual(['t10', 't11']);
  });
});

describe('text-mode parser: tolerated variations', () => {
  it('```json fences inside the tags, with or without a language', () => {
    for (const body of [
      '```json\n{"name": "a__x", "arguments": {"k": 1}}\n```',
      '\n```\n{"name": "a__x", "arguments": {"k": 1}}\n```\n',
      '```{"name": "a__x", "arguments": {"k": 1}}```',
    ]) {
      const { call } = one(`<tool_call>${body}</tool_call>`);
      expect(call).toEqual({ id: 'call_1', name: 'a__x', arguments: '{"k":1}' });
    }
  });

  it('"parameters" as a synonym of "arguments" ("arguments" wins when both are there)', () => {
    expect(one('<tool_call>{"name": "a__x", "parameters": {"k": 1}}</tool_call>').call).toEqual({
      id: 'call_1',
      name: 'a__x',
      arguments: '{"k":1}',
    });
    expect(one('<tool_call>{"name": "a__x", "arguments": {"a": 1}, "parameters": {"p": 1}}</tool_call>').call.arguments).toBe('{"a":1}');
  });

  it('arguments given as a JSON string holding an object', () => {
    const { call } = one('<tool_call>{"name": "a__x", "arguments": "{\\"k\\": [1, \\"two\\"]}"}</tool_call>');
    expect(call).toEqual({ id: 'call_1', name: 'a__x', arguments: '{"k":[1,"two"]}' });
  });

  it('missing, null or empty-string arguments are {}; whitespace around everything is fine', () => {
    expect(one('<tool_call>{"name": "a__x"}</tool_call>').call.arguments).toBe('{}');
    expect(one('<tool_call>{"name": "a__x", "arguments": null}</tool_call>').call.arguments).toBe('{}');
    expect(one('<tool_call>{"name": "a__x", "arguments": " "}</tool_call>').call.arguments).toBe('{}');
    expect(one('<tool_call>\n\n  {"name": " a__x ", "arguments": {}}  \n\t</tool_call>').call).toEqual({
      id: 'call_1',
      name: 'a__x',
      arguments: '{}',
    });
  });

  it('push after end throws; end twice gives nothing more', () => {
    const parser = createTextModeParser();
    parser.push('a <');
    expect(parser.end()).toBe('<');
    expect(parser.end()).toBe('');
    expect(() => parser.push('x')).toThrow(/after end/);
  });
});
