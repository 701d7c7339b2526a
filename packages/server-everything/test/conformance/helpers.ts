import { connectInMemory, type InMemoryClientOptions, type InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { vi } from 'vitest';
import type { EverythingOptions } from '../../src/context.js';
import { createConformanceServer } from '../../src/profiles/conformance/index.js';
import { createTestClock, type TestClock } from '../clock.js';

/** What the suite's client declares (`sampling`, `elicitation`). */
export const SUITE_CAPABILITIES = { sampling: {}, elicitation: {} };

export interface ConformancePair extends InMemoryPair {
  /** The test clock the server's steps and timers run on; absent when `options.scheduler` chose another. */
  clock?: TestClock;
}

/** The conformance profile in-process, with the real v2 client; its steps and timers run on a test clock. */
export async function connect(
  options: EverythingOptions = {},
  client: InMemoryClientOptions = { capabilities: SUITE_CAPABILITIES },
): Promise<ConformancePair> {
  const clock = options.scheduler ? undefined : createTestClock();
  const pair = await connectInMemory(createConformanceServer({ ...(clock ? { scheduler: clock.scheduler } : {}), ...options }), client);
  return clock ? Object.assign(pair, { clock }) : pair;
}

/** Calls a tool and returns its result (the client's union type narrowed to a tool result), its steps run on the pair's clock. */
export async function call(pair: ConformancePair, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = pair.client.callTool({ name, arguments: args });
  return (await (pair.clock ? pair.clock.run(result) : result)) as CallToolResult;
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
