import { setRawRequestHandler } from '@mcpkit/protocol-core/low-level';
import { CompleteRequestSchema } from '@modelcontextprotocol/core';
import type { McpServer } from '@modelcontextprotocol/server';

/** The reference's `EXAMPLE_COMPLETIONS`, by argument name. */
const EXAMPLE_COMPLETIONS: Readonly<Record<string, readonly string[]>> = {
  style: ['casual', 'formal', 'technical', 'friendly'],
  temperature: ['0', '0.5', '0.7', '1.0'],
  resourceId: ['1', '2', '3', '4', '5'],
};

function complete(candidates: readonly string[], value: string) {
  const values = candidates.filter((candidate) => candidate.startsWith(value));
  return { completion: { values, hasMore: false, total: values.length } };
}

/**
 * `completion/complete` as the reference answers it: a `ref/resource` completes resource ids 1–5 whatever
 * the argument; a `ref/prompt` completes by argument name whatever the prompt; an unknown argument gets
 * `{ values: [] }` (no `hasMore`/`total`).
 */
export function setCompletionHandler(server: McpServer): void {
  setRawRequestHandler(server, CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    if (ref.type === 'ref/resource') {
      if (!ref.uri.split('/').pop()) return { completion: { values: [] } };
      return complete(EXAMPLE_COMPLETIONS.resourceId ?? [], argument.value);
    }
    // `Object.hasOwn`: an argument called `constructor` is unknown, not Object.prototype's (a TypeError in the reference).
    const candidates = Object.hasOwn(EXAMPLE_COMPLETIONS, argument.name) ? EXAMPLE_COMPLETIONS[argument.name] : undefined;
    if (!candidates) return { completion: { values: [] } };
    return complete(candidates, argument.value);
  });
}
