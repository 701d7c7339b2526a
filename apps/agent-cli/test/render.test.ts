import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatJsonPreview,
  formatLog,
  formatNotice,
  formatProgress,
  formatTaskStatus,
  formatToolResult,
  formatToolStart,
  type RenderToolOutcome,
  truncate,
} from '../src/terminal/render.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const tool = { server: 'memory', tool: 'create_entities' };
const call = { name: 'memory__create_entities', arguments: '{"entities":[{"name":"Ada"}]}' };

function outcome(extra: Partial<RenderToolOutcome>): RenderToolOutcome {
  return { call, tool, status: 'ok', text: 'x'.repeat(123), isError: false, durationMs: 40, ...extra };
}

describe('formatToolStart', () => {
  it('shows the server, the tool and the arguments', () => {
    expect(formatToolStart(call, tool)).toBe('→ memory › create_entities {"entities":[{"name":"Ada"}]}');
  });

  it('collapses nested values when the arguments are long', () => {
    const args = JSON.stringify({ entities: Array.from({ length: 20 }, (_, i) => ({ name: `entity ${i}`, observations: ['x'] })) });
    expect(formatToolStart({ name: call.name, arguments: args }, tool)).toBe('→ memory › create_entities {"entities":[…]}');
  });

  it('cuts what still does not fit', () => {
    const args = JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, i])));
    const line = formatToolStart({ name: call.name, arguments: args }, tool);
    expect(line.length).toBeLessThanOrEqual('→ memory › create_entities '.length + 160);
    expect(line.endsWith('…')).toBe(true);
  });

  it('uses the namespaced name for a call that reached no tool, and shows malformed arguments as text', () => {
    expect(formatToolStart({ name: 'nope__x', arguments: '{"a":' })).toBe('→ nope__x {"a":');
    expect(formatToolStart({ name: 'nope__x', arguments: '' })).toBe('→ nope__x {}');
  });

  it('sanitises names and arguments', () => {
    const line = formatToolStart(
      { name: 'x', arguments: '{"a":"\\u001b[2J\\u202e\\u0085", bad' },
      { server: 's\u001b]0;t\u0007', tool: 't\r' },
    );
    expect(line).not.toMatch(CONTROL);
    expect(line.startsWith('→ s › t ')).toBe(true);
    expect(formatToolStart({ name: 'x', arguments: '{"a":"\\u202e"}' }, tool)).toBe('→ memory › create_entities {"a":"\\u202e"}');
  });

  it('colours only when asked', () => {
    expect(formatToolStart(call, tool, { color: false })).not.toContain('\u001b');
    expect(formatToolStart(call, tool, { color: true })).toBe(
      '\u001b[36m→\u001b[0m memory › create_entities \u001b[2m{"entities":[{"name":"Ada"}]}\u001b[0m',
    );
  });
});

describe('formatToolResult', () => {
  it('shows a result with its size and time', () => {
    expect(formatToolResult(outcome({}))).toBe('← memory › create_entities ok (123 chars, 40ms)');
    expect(formatToolResult(outcome({ durationMs: 2500, text: '' }))).toBe('← memory › create_entities ok (0 chars, 2.5s)');
  });

  it('shows the first line of an error, without the "Error:" the model reads', () => {
    expect(formatToolResult(outcome({ status: 'error', isError: true, text: '\nError: disk full\nmore detail' }))).toBe(
      '✗ memory › create_entities error: disk full',
    );
  });

  it('names each way a call can fail', () => {
    const cases: Array<[RenderToolOutcome['status'], string]> = [
      ['denied', 'denied'],
      ['timeout', 'timed out'],
      ['cancelled', 'cancelled'],
      ['unknown_tool', 'unknown tool'],
      ['invalid', 'invalid call'],
    ];
    for (const [status, label] of cases) {
      expect(formatToolResult(outcome({ status, isError: true, text: 'Error: why' }))).toBe(`✗ memory › create_entities ${label}: why`);
    }
    expect(formatToolResult(outcome({ status: 'error', isError: true, text: '' }))).toBe('✗ memory › create_entities error');
  });

  it('sanitises and cuts the error line', () => {
    const line = formatToolResult(outcome({ status: 'error', isError: true, text: `\u001b[31m${'e'.repeat(1000)}\rX` }));
    expect(line).not.toMatch(CONTROL);
    expect(line.length).toBeLessThan(340);
    expect(line.endsWith('…')).toBe(true);
  });

  it('colours ok green and errors red when asked', () => {
    expect(formatToolResult(outcome({}), { color: true })).toContain('\u001b[32mok\u001b[0m');
    expect(formatToolResult(outcome({ status: 'denied', isError: true, text: 'no' }), { color: true })).toContain(
      '\u001b[31mdenied\u001b[0m',
    );
  });
});

describe('formatProgress', () => {
  it('shows progress with and without a total', () => {
    expect(formatProgress('git', 'clone', { progress: 3, total: 10, message: 'copying files' })).toBe(
      '… git › clone 3/10 (30%) copying files',
    );
    expect(formatProgress('git', 'clone', { progress: 7 })).toBe('… git › clone 7');
    expect(formatProgress('git', 'clone', { progress: 12, total: 10 })).toBe('… git › clone 12/10 (100%)');
  });

  it('keeps a multi-line message on one safe line', () => {
    expect(formatProgress('s', 't', { progress: 1, message: 'a\nb\u001b[2K\rc' })).toBe('… s › t 1 a bc');
  });
});

describe('formatTaskStatus', () => {
  it('shows the task, its status and message on one safe line', () => {
    expect(formatTaskStatus('git', 'clone', { taskId: 'abc', status: 'working', statusMessage: '40% copied' })).toBe(
      '… git › clone task abc: working 40% copied',
    );
    expect(formatTaskStatus('s', 't', { taskId: 'x'.repeat(40), status: 'input_required', statusMessage: 'a\nb\u001b[2K' })).toBe(
      `… s › t task ${'x'.repeat(11)}…: input_required a b`,
    );
  });
});

describe('formatLog', () => {
  it('shows text and JSON data on one line', () => {
    expect(formatLog('memory', 'warning', 'disk almost full')).toBe('[memory] warning: disk almost full');
    expect(formatLog('memory', 'info', { event: 'saved', count: 3 })).toBe('[memory] info: {"event":"saved","count":3}');
    expect(formatLog('memory', 'debug', 'line one\nline two')).toBe('[memory] debug: line one line two');
  });

  it('sanitises and cuts', () => {
    const line = formatLog('s\u001b[1m', 'error', `\u001b]0;x\u0007${'y'.repeat(1000)}`);
    expect(line).not.toMatch(CONTROL);
    expect(line.startsWith('[s] error: yyy')).toBe(true);
    expect(line.length).toBeLessThan(320);
  });

  it('colours the level when asked', () => {
    expect(formatLog('s', 'error', 'x', { color: true })).toBe('[s] \u001b[31merror\u001b[0m: x');
    expect(formatLog('s', 'warning', 'x', { color: true })).toBe('[s] \u001b[33mwarning\u001b[0m: x');
  });
});

describe('formatNotice', () => {
  it('is one sanitised line', () => {
    expect(formatNotice('memory failed to start:\n  spawn ENOENT\u0007')).toBe('mcp-agent: memory failed to start: spawn ENOENT');
    expect(formatNotice('tools changed', { color: true })).toBe('\u001b[33mmcp-agent:\u001b[0m tools changed');
  });
});

describe('helpers', () => {
  it('truncate keeps surrogate pairs whole', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('ab🎉cd', 4)).toBe('ab…');
  });

  it('formatJsonPreview shows whole JSON when it fits', () => {
    expect(formatJsonPreview({ a: [1, 2], b: 'x' }, 100)).toBe('{"a":[1,2],"b":"x"}');
    expect(formatJsonPreview(undefined, 100)).toBe('undefined');
  });

  it('formatJsonPreview collapses nested values unless told not to', () => {
    const value = { list: [1, 2, 3, 4, 5, 6, 7, 8, 9], n: 1 };
    expect(formatJsonPreview(value, 20)).toBe('{"list":[…],"n":1}');
    expect(formatJsonPreview(value, 20, { collapse: false })).toBe('{"list":[1,2,3,4,5,…');
  });

  it('formatDuration', () => {
    expect(formatDuration(5)).toBe('5ms');
    expect(formatDuration(1234)).toBe('1.2s');
    expect(formatDuration(125_000)).toBe('2m5s');
  });
});
