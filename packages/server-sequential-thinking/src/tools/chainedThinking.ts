/**
 * The `sequentialthinking` tool as a 2026-07-28 client sees it over HTTP, where there is no session: the reference's
 * tool plus one optional input and one result field, `thoughtChain`, the handle of the chain the thought went into
 * (`../chains/types.ts`). Without it, a thought starts a new chain; with it, the thought joins that chain of the
 * caller's, on whichever replica answers. 2025 sessions and stdio keep the reference's tool (`sequentialThinking.ts`).
 */
import { defineTool, structuredResult, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { requestOwner } from '../chains/owner.js';
import type { ChainStore } from '../chains/types.js';
import { isHandle, UnknownChainError } from '../chains/types.js';
import type { ThoughtRecord } from '../history.js';
import { checkSize, DESCRIPTION, THINKING_INPUT, THINKING_OUTPUT, type ThinkingContext } from './sequentialThinking.js';

export interface ChainContext extends Omit<ThinkingContext, 'history'> {
  chains: ChainStore;
  /** How long an unused chain lives, for the error text. */
  chainTtlMs: number;
}

/** The reference's description and one paragraph on the handle. */
const CHAINED_DESCRIPTION = `${DESCRIPTION}

Thought chains: every result carries thoughtChain, the handle of the chain this thought was recorded in. Pass it back as thoughtChain with each following thought of the same chain; leave it out only to start a new chain (the history then starts over).`;

/** `1 h`, `30 min`, `90 s`. */
const formatTtl = (ms: number): string =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;

/** One text for every handle that leads nowhere, so an answer never says whether a chain exists for someone else. */
function unknownChain(ttlMs: number): ToolError {
  return new ToolError(
    `thoughtChain: no thought chain of yours has this handle (a chain lasts ${formatTtl(ttlMs)} after its last thought, and only for whoever started it). Nothing was recorded; leave thoughtChain out to start a new chain.`,
  );
}

export const chainedThinking = defineTool({
  name: 'sequentialthinking',
  title: 'Sequential Thinking',
  description: CHAINED_DESCRIPTION,
  input: {
    ...THINKING_INPUT,
    thoughtChain: z
      .string()
      .optional()
      .describe('The thoughtChain of the previous result of this chain of thoughts; leave it out to start a new chain'),
  },
  output: {
    ...THINKING_OUTPUT,
    thoughtChain: z.string().describe('Pass this as thoughtChain with the next thought of this chain'),
  },
  // It records every thought in the chain: not read-only, and a repeat adds another entry.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ thoughtChain, ...args }, { chains, chainTtlMs, maxThoughtBytes, logThought }: ChainContext, extra) => {
    checkSize(args, maxThoughtBytes);
    if (thoughtChain !== undefined && !isHandle(thoughtChain)) throw unknownChain(chainTtlMs);
    const record: ThoughtRecord = { ...args, totalThoughts: Math.max(args.totalThoughts, args.thoughtNumber) };
    let state: Awaited<ReturnType<ChainStore['append']>>;
    try {
      state = await chains.append(requestOwner(extra), thoughtChain, record);
    } catch (error) {
      if (error instanceof UnknownChainError) throw unknownChain(chainTtlMs);
      throw error;
    }
    await logThought(record);
    return structuredResult({
      thoughtNumber: record.thoughtNumber,
      totalThoughts: record.totalThoughts,
      nextThoughtNeeded: record.nextThoughtNeeded,
      branches: state.branches,
      thoughtHistoryLength: state.length,
      thoughtChain: state.handle,
    });
  },
});
