/**
 * Thought chains: where a 2026-07-28 client's thoughts live over HTTP, where no session exists. A chain is named by a
 * handle the server mints (crypto random, 192 bits) and returns with each answer; the client passes it back to go on.
 * A chain belongs to the owner that started it (`owner.ts`): a handle of another owner is as unknown as one never
 * minted. The store is a library: it returns data and throws `UnknownChainError`; the tool turns that into an answer.
 */
import { randomBytes } from 'node:crypto';
import type { ThoughtRecord } from '../history.js';

/** Where a chain stands after a thought was added: what the tool answers. */
export interface ChainState {
  /** The chain's handle (the one given, or the one minted for a new chain). */
  handle: string;
  /** Thoughts kept now (≤ maxHistory). */
  length: number;
  /** Branch ids in order of creation. */
  branches: string[];
}

export interface ChainStore {
  /**
   * Adds `record` to the chain `handle` of `owner`, or to a new chain when `handle` is undefined, within the history
   * bounds (the oldest thoughts dropped beyond them), and marks the chain used now. Throws `UnknownChainError` when no
   * live chain of `owner` has that handle (never minted, expired, evicted, or another owner's).
   */
  append(owner: string, handle: string | undefined, record: ThoughtRecord): Promise<ChainState>;
  /** Releases what the store holds (a pool); every call after fails. */
  close(): Promise<void>;
}

/** How long an unused chain lives and how many are kept, on top of each chain's history bounds. */
export interface ChainLimits {
  /** A chain unused this long is gone. Default 1 hour. */
  ttlMs: number;
  /** Chains kept at most; beyond it, the least recently used goes. Default 1000. */
  maxChains: number;
}

export const DEFAULT_CHAIN_LIMITS: ChainLimits = { ttlMs: 60 * 60 * 1000, maxChains: 1000 };

/** No live chain of this owner has this handle. One error for every reason, so a handle reveals nothing of others. */
export class UnknownChainError extends Error {
  constructor() {
    super('unknown thought chain');
    this.name = 'UnknownChainError';
  }
}

/** A new handle: 24 random bytes, base64url (32 characters). */
export function mintHandle(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether `text` has the shape of a minted handle (checked before any lookup, so no odd text reaches a store). */
export function isHandle(text: string): boolean {
  return /^[A-Za-z0-9_-]{32}$/.test(text);
}
