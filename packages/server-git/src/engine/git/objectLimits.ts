/**
 * What reading one object may cost, and the typed errors when a repository's objects are damaged or
 * would cost more. A repository is input (a cloned fork, an archive, a CI checkout) and one process serves
 * every session, so a crafted object must end in an answer, never in a crash, an OOM or a spin: every
 * size an object claims is checked against its file before anything is allocated, and every call has a
 * budget of bytes it may inflate.
 */
import { GitError } from '../errors.js';

export interface ObjectLimits {
  /** The largest object (a blob, tree, commit or tag; a delta's result) read; larger ones are refused before they are read. */
  maxObjectSize: number;
  /** The longest delta chain followed (git writes at most 4095: `pack.depth`'s ceiling). */
  maxDeltaDepth: number;
  /** The bytes one tool call may inflate and build from deltas, in all. */
  maxInflateBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_OBJECT_LIMITS: ObjectLimits = {
  maxObjectSize: 16 * MiB,
  maxDeltaDepth: 4095,
  maxInflateBytes: 1024 * MiB,
};

/** `bytes` for a message: whole MiB or KiB when it is one, else bytes. */
function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** An object or a pack file that cannot be what it claims: a final answer, no other reader gets it. */
export class ObjectStoreDamaged extends GitError {
  /** The object's id, or the file's path inside the git dir (`objects/pack/pack-….idx`). */
  readonly at: string;
  constructor(at: string, reason: string) {
    super('DAMAGED', `The repository's object store is damaged at ${at}: ${reason}.`);
    this.at = at;
  }
}

/** An object (or a call) over one of the ObjectLimits: the message names the object and the flag. */
export class ObjectLimitExceeded extends GitError {
  constructor(message: string) {
    super('LIMIT_EXCEEDED', message);
  }
}

/** One tool call's reading: its limits, the bytes inflated so far, and the oids being read (ref-delta bases on the way). */
export interface ReadBudget {
  readonly limits: ObjectLimits;
  spent: number;
  /** The objects being read, outermost first: one met again is a delta cycle. */
  readonly open: string[];
  /** Deltas applied on the way to the outermost object (ref-delta bases count their chains too). */
  depth: number;
}

export function createBudget(limits: ObjectLimits): ReadBudget {
  return { limits, spent: 0, open: [], depth: 0 };
}

/** Counts `bytes` about to be inflated or built for `oid`; throws before the work when the call's budget would pass. */
export function charge(budget: ReadBudget, bytes: number, oid: string): void {
  const max = budget.limits.maxInflateBytes;
  if (budget.spent + bytes > max) {
    throw new ObjectLimitExceeded(
      `Reading ${oid} would inflate ${budget.spent + bytes} bytes, over --max-inflate-bytes (${formatBytes(max)}) in one call; raise the flag to read it.`,
    );
  }
  budget.spent += bytes;
}

/** Throws when `size` (of a `type` object `oid`, or a delta base on its way) passes --max-object-size. */
export function checkSize(budget: ReadBudget, type: string, oid: string, size: number, base = false): void {
  const max = budget.limits.maxObjectSize;
  if (size <= max) return;
  const what = base ? `${type} ${oid} is built from a delta base of ${size} bytes` : `${type} ${oid} is ${size} bytes`;
  throw new ObjectLimitExceeded(`${what}, over --max-object-size (${formatBytes(max)}); raise the flag to read it.`);
}

/** Counts one more delta on the way to the outermost object; throws past --max-delta-depth. */
export function deeper(budget: ReadBudget): void {
  budget.depth += 1;
  const max = budget.limits.maxDeltaDepth;
  if (budget.depth > max) {
    throw new ObjectLimitExceeded(`Refused: the delta chain of ${budget.open[0]} is deeper than --max-delta-depth (${max}).`);
  }
}

/** Whether `error` is the object store's final word (damage or a limit), which no caller may take for "not found". */
export function isObjectStoreError(error: unknown): error is ObjectStoreDamaged | ObjectLimitExceeded {
  return error instanceof ObjectStoreDamaged || error instanceof ObjectLimitExceeded;
}
