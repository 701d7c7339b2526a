/** Step 6: every call of the round gets its tool message, in the order the model made them. */
import type { Message } from '../../types.js';
import type { ToolOutcome } from '../context.js';

export function formatResults(outcomes: readonly ToolOutcome[]): Message[] {
  return outcomes.map((outcome) => ({
    role: 'tool',
    toolCallId: outcome.call.id,
    name: outcome.call.name,
    content: outcome.text,
    ...(outcome.isError ? { isError: true } : {}),
  }));
}
