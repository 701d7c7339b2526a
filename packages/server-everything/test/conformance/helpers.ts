import { connectInMemory, type InMemoryClientOptions, type InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { vi } from 'vitest';
import type { EverythingOptions } from '../../src/context.js';
import { createConformanceServer } from '../../src/profiles/conformance/index.js';

/** What the suite's client declares (`sampling`, `elicitation`). */
export const SUITE_CAPABILITIES = { sampling: {}, elicitation: {} };

/** The conformance profile in-process, with the real v2 client. */
export function connect(
  options: EverythingOptions = {},
  client: InMemoryClientOptions = { capabilities: SUITE_CAPABILITIES },
): Promise<InMemoryPair> {
  return connectInMemory(createConformanceServer(options), client);
}

/** Calls a tool and returns its result (the client's union type narrowed to a tool result). */
export async function call(pair: InMemoryPair, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await pair.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first text block. */
export function firstText(result: CallToolResult): string {
  const block = result.content.find((c) => c.type === 'text');
  if (block?.type !== 'text') throw new Error(`no text block in ${JSON.stringify(result)}`);
  return block.text;
}

/** Resolves once `check()` holds, polling every 5 ms; rejects after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('condition not met in time');
    },
    { timeout: timeoutMs, interval: 5 },
  );
}
