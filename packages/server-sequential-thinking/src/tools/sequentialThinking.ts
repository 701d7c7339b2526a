import { Buffer } from 'node:buffer';
import { defineTool, formatBytes, structuredResult, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { type ThoughtHistory, type ThoughtRecord, thoughtBytes } from '../history.js';

export interface ThinkingContext {
  history: ThoughtHistory;
  /** Largest thought accepted, in UTF-8 bytes of `thought` plus `branchId`; a larger one is refused, not recorded. */
  maxThoughtBytes: number;
  /** Draws a thought on stderr, or does nothing when thought logging is off. */
  logThought(record: ThoughtRecord): Promise<void>;
}

// Verbatim from the reference (src/sequentialthinking/index.ts @ 76d64c82); clients and prompts rely on it.
export const DESCRIPTION = `A detailed tool for dynamic and reflective problem-solving through thoughts.
This tool helps analyze problems through a flexible thinking process that can adapt and evolve.
Each thought can build on, question, or revise previous insights as understanding deepens.

When to use this tool:
- Breaking down complex problems into steps
- Planning and design with room for revision
- Analysis that might need course correction
- Problems where the full scope might not be clear initially
- Problems that require a multi-step solution
- Tasks that need to maintain context over multiple steps
- Situations where irrelevant information needs to be filtered out

Key features:
- You can adjust total_thoughts up or down as you progress
- You can question or revise previous thoughts
- You can add more thoughts even after reaching what seemed like the end
- You can express uncertainty and explore alternative approaches
- Not every thought needs to build linearly - you can branch or backtrack
- Generates a solution hypothesis
- Verifies the hypothesis based on the Chain of Thought steps
- Repeats the process until satisfied
- Provides a correct answer

Parameters explained:
- thought: Your current thinking step, which can include:
  * Regular analytical steps
  * Revisions of previous thoughts
  * Questions about previous decisions
  * Realizations about needing more analysis
  * Changes in approach
  * Hypothesis generation
  * Hypothesis verification
- nextThoughtNeeded: True if you need more thinking, even if at what seemed like the end
- thoughtNumber: Current number in sequence (can go beyond initial total if needed)
- totalThoughts: Current estimate of thoughts needed (can be adjusted up/down)
- isRevision: A boolean indicating if this thought revises previous thinking
- revisesThought: If is_revision is true, which thought number is being reconsidered
- branchFromThought: If branching, which thought number is the branching point
- branchId: Identifier for the current branch (if any)
- needsMoreThoughts: If reaching end but realizing more thoughts needed

You should:
1. Start with an initial estimate of needed thoughts, but be ready to adjust
2. Feel free to question or revise previous thoughts
3. Don't hesitate to add more thoughts if needed, even at the "end"
4. Express uncertainty when present
5. Mark thoughts that revise previous thinking or branch into new paths
6. Ignore information that is irrelevant to the current step
7. Generate a solution hypothesis when appropriate
8. Verify the hypothesis based on the Chain of Thought steps
9. Repeat the process until satisfied with the solution
10. Provide a single, ideally correct answer as the final output
11. Only set nextThoughtNeeded to false when truly done and a satisfactory answer is reached`;

/** LLM clients send `"5"` and `"true"`: numbers are coerced, booleans accept "true"/"false" in any case. */
const positiveInt = () => z.coerce.number().int().min(1);
const looseBoolean = () =>
  z.preprocess((v) => (typeof v === 'string' && /^(true|false)$/i.test(v) ? v.toLowerCase() === 'true' : v), z.boolean());

/**
 * Refuses a thought larger than the per-thought limit, naming the field at fault. Checked here and
 * not in the input schema: the limit is configurable, counts UTF-8 bytes (zod's `max` counts UTF-16
 * units), and the advertised schema stays the reference's.
 */
export function checkSize(args: Pick<ThoughtRecord, 'thought' | 'branchId'>, max: number): void {
  const total = thoughtBytes(args);
  if (total <= max) return;
  const label = formatBytes(max, { exact: true });
  const limit = `at most ${max} bytes${label.endsWith(' bytes') ? '' : ` (${label})`} are allowed per thought. Nothing was recorded`;
  const own = Buffer.byteLength(args.thought, 'utf8');
  if (own > max) throw new ToolError(`thought is ${own} bytes long (UTF-8); ${limit}: split it into smaller thoughts.`);
  throw new ToolError(`thought and branchId are ${total} bytes long together (UTF-8); ${limit}: use a shorter branchId.`);
}

/** The reference's arguments: the input schema of every era. */
export const THINKING_INPUT = {
  thought: z.string().describe('Your current thinking step'),
  nextThoughtNeeded: looseBoolean().describe('Whether another thought step is needed'),
  thoughtNumber: positiveInt().describe('Current thought number (numeric value, e.g., 1, 2, 3)'),
  totalThoughts: positiveInt().describe('Estimated total thoughts needed (numeric value, e.g., 5, 10)'),
  isRevision: looseBoolean().optional().describe('Whether this revises previous thinking'),
  revisesThought: positiveInt().optional().describe('Which thought is being reconsidered'),
  branchFromThought: positiveInt().optional().describe('Branching point thought number'),
  branchId: z.string().optional().describe('Branch identifier'),
  needsMoreThoughts: looseBoolean().optional().describe('If more thoughts are needed'),
};

/** The reference's result fields. */
export const THINKING_OUTPUT = {
  thoughtNumber: z.number(),
  totalThoughts: z.number(),
  nextThoughtNeeded: z.boolean(),
  branches: z.array(z.string()),
  thoughtHistoryLength: z.number(),
};

const sequentialThinking = defineTool({
  name: 'sequentialthinking',
  title: 'Sequential Thinking',
  description: DESCRIPTION,
  input: THINKING_INPUT,
  output: THINKING_OUTPUT,
  // It records every thought in the session's history: not read-only, and a repeat adds another entry.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (args, { history, maxThoughtBytes, logThought }: ThinkingContext) => {
    checkSize(args, maxThoughtBytes);
    const record: ThoughtRecord = { ...args, totalThoughts: Math.max(args.totalThoughts, args.thoughtNumber) };
    history.add(record);
    await logThought(record);
    return structuredResult({
      thoughtNumber: record.thoughtNumber,
      totalThoughts: record.totalThoughts,
      nextThoughtNeeded: record.nextThoughtNeeded,
      branches: history.branchIds(),
      thoughtHistoryLength: history.length,
    });
  },
});

export const tools = [sequentialThinking];
