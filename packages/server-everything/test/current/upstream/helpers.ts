/**
 * The reference's own suite (modelcontextprotocol/servers `src/everything/__tests__`, HEAD 76d64c82; the spec's
 * §6.1–6.5, 107 tests), ported. Upstream calls registration functions and handlers on mocks; here the same
 * facts are checked over the wire with a real SDK client (so SDK validation runs too), or on the exported
 * helpers where the upstream test is about a helper. Test names carry the upstream file and number.
 */
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import { createTestClock } from '../../clock.js';
import { connectCurrent } from '../helpers.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function toolNames(capabilities: ClientCapabilities): Promise<string[]> {
  await using pair = await connectCurrent({}, { capabilities });
  return (await pair.client.listTools()).tools.map((t) => t.name);
}

/** One call on a fresh session whose simulations run on a test clock: the call's own waits (steps) are run through. */
export async function call(name: string, args: Record<string, unknown> = {}, capabilities: ClientCapabilities = {}) {
  const clock = createTestClock();
  await using pair = await connectCurrent({ scheduler: clock.scheduler }, { capabilities });
  return (await clock.run(pair.client.callTool({ name, arguments: args }))) as CallToolResult;
}

export async function prompt(name: string, args?: Record<string, string>) {
  await using pair = await connectCurrent();
  return await pair.client.getPrompt({ name, ...(args ? { arguments: args } : {}) });
}
