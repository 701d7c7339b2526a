/**
 * The write queue: mutations are applied one batch at a time, in the order they were called, and
 * the calls that arrive in the same turn of the event loop form one batch, committed together (one
 * journal append and one `fdatasync` for all of them: group commit). Each call then gets its own
 * outcome: its value, or its error. Nothing here knows where the records go (`applyBatch` collects
 * them for the store to persist).
 */
import { ToolError } from '@mcpkit/protocol-core';
import type { Graph, GraphRecord, Mutation } from '../graph.js';

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

/** A batch applied to a graph: each call's outcome, and the records that make the batch durable. */
export interface AppliedBatch {
  outcomes: Outcome[];
  records: GraphRecord[];
  changed: boolean;
  /** A call threw something other than a `ToolError`: it may have left a half-applied change. */
  broken: boolean;
}

/** Applies `batch` to `graph` in order. A call that fails (a `ToolError`, raised before anything changes) fails alone. */
export function applyBatch(graph: Graph, batch: readonly ((graph: Graph) => unknown)[]): AppliedBatch {
  const applied: AppliedBatch = { outcomes: [], records: [], changed: false, broken: false };
  for (const run of batch) {
    try {
      const m = run(graph) as Mutation<unknown>;
      for (const r of m.records) applied.records.push(r);
      applied.changed ||= m.changed;
      applied.outcomes.push({ ok: true, value: m.value });
    } catch (error) {
      if (!(error instanceof ToolError)) applied.broken = true;
      applied.outcomes.push({ ok: false, error });
    }
  }
  return applied;
}
