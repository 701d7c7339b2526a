/**
 * The change notices of one graph's store, sent after its writes commit rather than inside them. A NOTIFY takes one
 * lock of the whole database (PostgreSQL's `PreCommit_Notify`: `AccessExclusiveLock` on object 0 of `pg_database`)
 * and holds it until its transaction's commit record is flushed, so writes that notified committed one after the other,
 * each waiting for its own flush, across every replica. A notice of its own, in a statement that does not wait for the
 * disk (a notice carries no data), holds that lock for a moment only, and the writes commit together again.
 *
 * At most one notice of a store is on its way: the writes that commit meanwhile are told by one more notice after it,
 * so a burst of writes costs one or two. A notice always leaves after the commit of every write it stands for (a
 * follower that re-reads sees them). What this gives up: a process that dies between a commit and its notice never
 * sends it (followers hear the graph's next change), and a notice that fails (database unreachable) is logged.
 */
export interface Notifier {
  /** A write committed a change: a notice follows (now, or after the one on its way). */
  changed(): void;
  /** Resolves once no notice is on its way (for a clean close). */
  settled(): Promise<void>;
}

export function createNotifier(send: () => Promise<void>, onError: (error: unknown) => void): Notifier {
  let running: Promise<void> | undefined;
  let again = false;
  const drain = async () => {
    try {
      do {
        again = false;
        await send().catch(onError);
      } while (again);
    } finally {
      running = undefined;
    }
  };
  return {
    changed() {
      if (running) again = true;
      else running = drain();
    },
    settled: () => running ?? Promise.resolve(),
  };
}
