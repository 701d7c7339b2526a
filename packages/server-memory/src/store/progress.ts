/**
 * Waiting for a load that runs in the background: how far it is (bytes of the file) for the calls
 * that asked to hear it, and a way for one call to stop waiting (its signal) while the load goes on
 * for the others.
 */
import type { LoadProgress, ReadyOptions } from './types.js';

/** Progress is passed on at most this often (and always at the end). */
const EVERY_MS = 50;

export class LoadTracker {
  private readonly listeners = new Set<(p: LoadProgress) => void>();
  private last: LoadProgress | undefined;
  private lastSent = 0;

  /** The load has read `loaded` of `total` bytes (told only when that grows). */
  report(loaded: number, total: number): void {
    if (this.last && loaded <= this.last.loaded) return;
    this.last = { loaded, total };
    const now = performance.now();
    if (loaded < total && now - this.lastSent < EVERY_MS) return;
    this.lastSent = now;
    for (const l of this.listeners) l(this.last);
  }

  /**
   * Resolves or rejects as `load` does, telling `onProgress` how far it is (at once, then as it
   * goes). Rejects with the signal's reason when `signal` aborts first; `load` is not affected.
   */
  wait(load: Promise<void>, { onProgress, signal }: ReadyOptions = {}): Promise<void> {
    if (!onProgress && !signal) return load;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const listener = onProgress ? (p: LoadProgress) => onProgress(p) : undefined;
      const done = () => {
        if (listener) this.listeners.delete(listener);
        signal?.removeEventListener('abort', abort);
      };
      const abort = () => {
        done();
        reject(signal!.reason);
      };
      if (listener) {
        this.listeners.add(listener);
        if (this.last) listener(this.last);
      }
      signal?.addEventListener('abort', abort, { once: true });
      load.then(
        () => {
          done();
          resolve();
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  /** Listeners waiting now (for tests). */
  get waiting(): number {
    return this.listeners.size;
  }

  reset(): void {
    this.last = undefined;
    this.lastSent = 0;
  }
}
