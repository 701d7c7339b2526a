/** The change notices after commits (`notifier.ts`): one on its way at a time, the writes meanwhile told by one more. */
import { describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/store/postgres/notifier.js';

/** A `send` whose calls stay pending until released one by one. */
function gatedSend() {
  const pending: (() => void)[] = [];
  let sent = 0;
  const send = () =>
    new Promise<void>((resolve) => {
      sent++;
      pending.push(resolve);
    });
  return { send, sent: () => sent, release: () => pending.shift()?.() };
}

describe('PostgreSQL store: change notices after the commit', () => {
  it('sends one notice at once, and one more for every change that committed while it was on its way', async () => {
    const gate = gatedSend();
    const notifier = createNotifier(gate.send, () => {});
    notifier.changed();
    expect(gate.sent()).toBe(1); // at once, not on a timer
    notifier.changed();
    notifier.changed();
    notifier.changed();
    expect(gate.sent()).toBe(1); // the first is still on its way
    gate.release();
    await expect.poll(gate.sent).toBe(2); // one more stands for the three
    let settled = false;
    void notifier.settled().then(() => (settled = true));
    gate.release();
    await notifier.settled();
    expect(settled).toBe(true);
    expect(gate.sent()).toBe(2);
    notifier.changed(); // idle again: a new change sends at once
    expect(gate.sent()).toBe(3);
    gate.release();
    await notifier.settled();
  });

  it('a failed notice is reported and does not stop the next ones', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const notifier = createNotifier(
      async () => {
        calls++;
        if (calls === 1) throw new Error('database unreachable');
      },
      (error) => errors.push(error),
    );
    notifier.changed();
    await notifier.settled();
    expect(errors).toHaveLength(1);
    notifier.changed();
    await notifier.settled();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
