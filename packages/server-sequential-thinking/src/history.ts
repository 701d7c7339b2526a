import { Buffer } from 'node:buffer';

/** One recorded thought, as the tool received it (after the `totalThoughts` adjustment). */
export interface ThoughtRecord {
  thought: string;
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  isRevision?: boolean | undefined;
  revisesThought?: number | undefined;
  branchFromThought?: number | undefined;
  branchId?: string | undefined;
  needsMoreThoughts?: boolean | undefined;
}

/** How much one session keeps; the oldest thoughts are dropped beyond either bound. */
export interface HistoryLimits {
  /** Thoughts kept at most. */
  maxHistory: number;
  /** UTF-8 bytes of thoughts (see `thoughtBytes`) kept at most. */
  maxHistoryBytes: number;
}

/** The defaults of the CLI and of `createSequentialThinkingServer`. */
export const DEFAULT_LIMITS = {
  maxHistory: 1000,
  maxHistoryBytes: 8 * 1024 * 1024,
  maxThoughtBytes: 128 * 1024,
} as const;

export interface HistorySnapshot {
  thoughts: ThoughtRecord[];
  branches: Record<string, ThoughtRecord[]>;
  /** Thoughts dropped from the front to stay within `maxHistory` and `maxHistoryBytes`. */
  dropped: number;
  maxHistory: number;
  /** Size of the kept thoughts, in UTF-8 bytes (see `thoughtBytes`). */
  bytes: number;
  maxHistoryBytes: number;
}

export interface ThoughtHistory {
  add(record: ThoughtRecord): void;
  /** Number of thoughts kept now (≤ maxHistory). */
  readonly length: number;
  /** UTF-8 bytes of the thoughts kept now (≤ maxHistoryBytes). */
  readonly bytes: number;
  /** Branch ids in order of creation. */
  branchIds(): string[];
  snapshot(): HistorySnapshot;
}

/**
 * What a thought costs the history: the UTF-8 bytes of its free-text fields, `thought` and
 * `branchId` (everything else is a number or a boolean). UTF-8 length is at least what V8 needs to
 * hold the same text, so a byte budget in these units bounds the memory the strings take.
 */
export function thoughtBytes(record: Pick<ThoughtRecord, 'thought' | 'branchId'>): number {
  return Buffer.byteLength(record.thought, 'utf8') + (record.branchId ? Buffer.byteLength(record.branchId, 'utf8') : 0);
}

/**
 * The thoughts of one client session, bounded both in count (`maxHistory`) and in bytes
 * (`maxHistoryBytes`): after each `add`, the oldest thoughts are dropped until both hold, so memory
 * stays flat however long a session runs and however large its thoughts. A thought joins a branch
 * only when it has both `branchFromThought` and `branchId`, as in the reference; a branch whose
 * thoughts were all dropped disappears with them.
 */
export function createThoughtHistory({ maxHistory, maxHistoryBytes }: HistoryLimits): ThoughtHistory {
  // A ring would avoid the O(n) shift, but shift on ≤ maxHistory items is cheap next to a tool call.
  const thoughts: ThoughtRecord[] = [];
  /** `thoughtBytes` of each kept thought, in step with `thoughts`. */
  const sizes: number[] = [];
  const branches = new Map<string, ThoughtRecord[]>();
  let bytes = 0;
  let dropped = 0;

  // The one way a thought leaves the history, whichever bound it exceeded.
  const evictOldest = () => {
    const old = thoughts.shift();
    if (!old) return;
    bytes -= sizes.shift() ?? 0;
    dropped++;
    if (old.branchFromThought && old.branchId) {
      const list = branches.get(old.branchId);
      if (list?.[0] === old) list.shift();
      if (list && list.length === 0) branches.delete(old.branchId);
    }
  };

  return {
    add(record) {
      const size = thoughtBytes(record);
      thoughts.push(record);
      sizes.push(size);
      bytes += size;
      if (record.branchFromThought && record.branchId) {
        const list = branches.get(record.branchId);
        if (list) list.push(record);
        else branches.set(record.branchId, [record]);
      }
      // Ends at the latest when the history is empty; the length check keeps it finite whatever the sums say.
      while (thoughts.length > 0 && (thoughts.length > maxHistory || bytes > maxHistoryBytes)) evictOldest();
    },
    get length() {
      return thoughts.length;
    },
    get bytes() {
      return bytes;
    },
    branchIds: () => [...branches.keys()],
    snapshot: () => ({
      thoughts: [...thoughts],
      branches: Object.fromEntries([...branches].map(([id, list]) => [id, [...list]])),
      dropped,
      maxHistory,
      bytes,
      maxHistoryBytes,
    }),
  };
}
