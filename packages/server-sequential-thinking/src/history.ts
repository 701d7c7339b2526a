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

export interface HistorySnapshot {
  thoughts: ThoughtRecord[];
  branches: Record<string, ThoughtRecord[]>;
  /** Thoughts dropped from the front because the history reached `maxHistory`. */
  dropped: number;
  maxHistory: number;
}

export interface ThoughtHistory {
  add(record: ThoughtRecord): void;
  /** Number of thoughts kept now (≤ maxHistory). */
  readonly length: number;
  /** Branch ids in order of creation. */
  branchIds(): string[];
  snapshot(): HistorySnapshot;
}

/**
 * The thoughts of one client session, bounded to `maxHistory` (oldest dropped first), so memory
 * stays flat however long a session runs. A thought joins a branch only when it has both
 * `branchFromThought` and `branchId`, as in the reference; a branch whose thoughts were all
 * dropped disappears with them.
 */
export function createThoughtHistory(maxHistory: number): ThoughtHistory {
  // A ring would avoid the O(n) shift, but shift on ≤ maxHistory items is cheap next to a tool call.
  const thoughts: ThoughtRecord[] = [];
  const branches = new Map<string, ThoughtRecord[]>();
  let dropped = 0;

  const evictOldest = () => {
    const old = thoughts.shift();
    if (!old) return;
    dropped++;
    if (old.branchFromThought && old.branchId) {
      const list = branches.get(old.branchId);
      if (list?.[0] === old) list.shift();
      if (list && list.length === 0) branches.delete(old.branchId);
    }
  };

  return {
    add(record) {
      thoughts.push(record);
      if (record.branchFromThought && record.branchId) {
        const list = branches.get(record.branchId);
        if (list) list.push(record);
        else branches.set(record.branchId, [record]);
      }
      while (thoughts.length > maxHistory) evictOldest();
    },
    get length() {
      return thoughts.length;
    },
    branchIds: () => [...branches.keys()],
    snapshot: () => ({
      thoughts: [...thoughts],
      branches: Object.fromEntries([...branches].map(([id, list]) => [id, [...list]])),
      dropped,
      maxHistory,
    }),
  };
}
