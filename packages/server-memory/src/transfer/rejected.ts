/**
 * The lines `import` does not take, kept verbatim: written to a temp file beside `<file>.rejected`
 * as they are found (so a large file's rejects are never all in memory), renamed over it when the
 * import ends, removed when nothing was rejected or the import failed. Each line ends with `\n`, so
 * the file can be fixed by hand and imported again.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDir, tempPathFor, writeAll } from '../store/durable.js';

/** How many line numbers the summary names. */
const NAMED = 10;

export interface RejectedLine {
  /** 1-based line number in the imported file. */
  line: number;
  text: string;
  reason: string;
}

export interface RejectedSummary {
  count: number;
  /** The first line numbers (at most 10), for the summary line. */
  firstLines: number[];
  /** The first line's reason. */
  firstReason?: string;
  byKind: Record<RejectKind, number>;
}

export type RejectKind = 'unreadable' | 'foreign' | 'unstorable';

export class RejectedLines {
  private fd: number | undefined;
  private temp: string | undefined;
  readonly summary: RejectedSummary = { count: 0, firstLines: [], byKind: { unreadable: 0, foreign: 0, unstorable: 0 } };

  constructor(readonly path: string) {}

  add(kind: RejectKind, rejected: RejectedLine): void {
    const s = this.summary;
    s.count++;
    s.byKind[kind]++;
    if (s.firstLines.length < NAMED) s.firstLines.push(rejected.line);
    s.firstReason ??= `line ${rejected.line}: ${rejected.reason}`;
    if (this.fd === undefined) {
      this.temp = tempPathFor(this.path);
      this.fd = openSync(this.temp, 'wx', 0o600);
    }
    writeAll(this.fd, `${rejected.text}\n`);
  }

  /** Puts the rejected lines at `path` (replacing an older file there); false: none were rejected. */
  commit(): boolean {
    if (this.fd === undefined || this.temp === undefined) return false;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
    renameSync(this.temp, this.path);
    fsyncDir(dirname(this.path));
    return true;
  }

  /** Removes the temp file (the import failed: it will find the same lines when run again). */
  discard(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.temp !== undefined) {
      try {
        unlinkSync(this.temp);
      } catch {}
    }
  }
}

/** `3 lines not imported (2 unreadable, 1 foreign record): lines 4, 7, 9; …`, for the summary on stderr. */
export function describeRejected(s: RejectedSummary, path: string): string {
  const kinds = [
    s.byKind.unreadable ? `${s.byKind.unreadable} unreadable` : '',
    s.byKind.foreign ? `${s.byKind.foreign} of another record type` : '',
    s.byKind.unstorable ? `${s.byKind.unstorable} holding a NUL character` : '',
  ].filter(Boolean);
  const lines = `line${s.firstLines.length > 1 ? 's' : ''} ${s.firstLines.join(', ')}${s.count > s.firstLines.length ? ', …' : ''}`;
  return `${s.count} line${s.count === 1 ? '' : 's'} not imported (${kinds.join(', ')}): ${lines}; kept verbatim in ${path} (first: ${s.firstReason})`;
}
