/**
 * The write queue: mutations are applied one batch at a time, in the order they were called, and
 * the calls that arrive in the same turn of the event loop form one batch, committed together (one
 * journal append and one `fdatasync` for all of them: group commit). Each call then gets its own
 * outcome: its value, or its error.
 */

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Job<S> {
  run: (state: S) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class WriteQueue<S> {
  private readonly queue: Job<S>[] = [];
  private draining: Promise<void> | null = null;

  /** `commit` applies a batch in order and makes it durable; it answers one outcome per run. */
  constructor(private readonly commit: (batch: ((state: S) => unknown)[]) => Promise<Outcome[]>) {}

  /** Queues `run`; resolves with the value `commit` gave it, or rejects with its error. */
  push<T>(run: (state: S) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject });
      this.draining ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  /** Whether a batch is queued or being committed. */
  get busy(): boolean {
    return this.draining !== null;
  }

  /** Resolves once every queued write is committed (or failed). */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        const outcomes = await this.commit(batch.map((job) => job.run));
        batch.forEach((job, i) => {
          const o = outcomes[i]!;
          if (o.ok) job.resolve(o.value);
          else job.reject(o.error);
        });
      }
    } finally {
      this.draining = null;
    }
  }
}
