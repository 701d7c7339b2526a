import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { createSessionTable, type Session, type SessionTableOptions } from '../src/runner/http/sessionTable.js';

/** A response stand-in: `end()` is the server ending it, `drop()` the client going away first. */
class FakeResponse extends EventEmitter {
  writableEnded = false;
  end() {
    this.writableEnded = true;
    this.emit('close');
  }
  drop() {
    this.emit('close');
  }
}

function table(overrides: Partial<SessionTableOptions<string>> = {}) {
  let clock = 1_000_000;
  const closed: string[] = [];
  const lines: string[] = [];
  const sessions = createSessionTable<string>({
    maxSessions: 2,
    idleMs: 30 * 60_000,
    unusedIdleMs: 60_000,
    reclaimIdleMs: 60_000,
    close: async (s: Session<string>) => void closed.push(s.id),
    logger: createLogger({ name: 't', level: 'debug', write: (line) => void lines.push(line) }),
    now: () => clock,
    ...overrides,
  });
  const open = (id: string) => {
    expect(sessions.reserve()).toBe(true);
    const s = sessions.add(id, `value-${id}`);
    sessions.unreserve();
    return s;
  };
  return {
    sessions,
    closed,
    lines,
    open,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('session table', () => {
  it('admits up to maxSessions, counting reserved slots, then refuses sessions active within the floor', () => {
    const t = table();
    expect(t.sessions.reserve()).toBe(true);
    expect(t.sessions.reserve()).toBe(true);
    expect(t.sessions.reserve()).toBe(false);
    t.sessions.unreserve();
    t.open('a');
    t.sessions.unreserve();
    t.open('b');
    expect(t.sessions.size).toBe(2);
    t.advance(59_000);
    expect(t.sessions.reserve()).toBe(false);
    expect(t.closed).toEqual([]);
    expect(t.lines.join('')).toMatch(/refused a new session: 2 sessions are live and none is idle/);
  });

  it('reclaims the longest-idle session once it is idle past the floor, and logs it at info', () => {
    const t = table();
    const a = t.open('a');
    t.advance(1000);
    t.open('b');
    t.advance(60_000);
    expect(t.sessions.reserve()).toBe(true);
    expect(t.closed).toEqual(['a']);
    expect(t.sessions.get('a')).toBeUndefined();
    expect(a.value).toBe('value-a');
    expect(t.lines.join('')).toMatch(/info: session a reclaimed for a new session \(idle 61s; 2 sessions are live\)/);
  });

  it('never reclaims a session with a request in flight, however long it runs', () => {
    const t = table();
    const a = t.open('a');
    const b = t.open('b');
    const resA = new FakeResponse();
    const resB = new FakeResponse();
    t.sessions.track(a, resA);
    t.sessions.track(b, resB);
    t.advance(10 * 60_000);
    expect(t.sessions.reserve()).toBe(false);
    expect(t.sessions.expire()).toBe(0);
    resB.end();
    expect(t.sessions.reserve()).toBe(false);
    t.advance(60_000);
    expect(t.sessions.reserve()).toBe(true);
    expect(t.closed).toEqual(['b']);
  });

  it('reclaims at once a session whose client dropped its stream, before any merely idle one', () => {
    const t = table();
    t.open('idle');
    t.advance(120_000);
    const gone = t.open('gone');
    const stream = new FakeResponse();
    t.sessions.track(gone, stream, { stream: true });
    expect(gone.inFlight).toBe(1);
    stream.drop();
    expect(gone.left).toBe(true);
    expect(t.sessions.reserve()).toBe(true);
    expect(t.closed).toEqual(['gone']);
    expect(t.lines.join('')).toMatch(/debug: session gone reclaimed for a new session \(its client left 0s ago without DELETE/);
  });

  it('does not count a stream the server ended, or a dropped POST, as the client leaving; a new request clears it', () => {
    const t = table({ maxSessions: 1 });
    const s = t.open('s');
    const ended = new FakeResponse();
    t.sessions.track(s, ended, { stream: true });
    ended.end();
    expect(s.left).toBe(false);
    const post = new FakeResponse();
    t.sessions.track(s, post);
    post.drop();
    expect(s.left).toBe(false);
    const dropped = new FakeResponse();
    t.sessions.track(s, dropped, { stream: true });
    dropped.drop();
    expect(s.left).toBe(true);
    t.sessions.track(s, new FakeResponse());
    expect(s.left).toBe(false);
  });

  it('expires used sessions after idleMs and unused ones after unusedIdleMs, never with something in flight', () => {
    const t = table({ maxSessions: 5 });
    t.open('unused');
    const used = t.open('used');
    used.used = true;
    const busy = t.open('busy');
    t.sessions.track(busy, new FakeResponse());
    t.advance(60_001);
    expect(t.sessions.expire()).toBe(1);
    expect(t.closed).toEqual(['unused']);
    t.advance(30 * 60_000);
    expect(t.sessions.expire()).toBe(1);
    expect(t.closed).toEqual(['unused', 'used']);
    expect(t.sessions.ids()).toEqual(['busy']);
    expect(t.lines.join('')).toMatch(/session unused expired after 60s without a request after initialize/);
  });

  it('closes a session once, by id', async () => {
    const t = table();
    t.open('a');
    await t.sessions.close('a');
    await t.sessions.close('a');
    expect(t.closed).toEqual(['a']);
    expect(t.sessions.size).toBe(0);
  });
});
