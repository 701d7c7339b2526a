import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transcript } from './transcript.js';

/** One server on the tour: how to start it and what to show. */
export interface Stop {
  title: string;
  /** The workspace package whose built bin is started. */
  pkg: string;
  /** Extra CLI args and env for the bin; may set up temp dirs or local servers first. */
  prepare(): Promise<{ args?: string[]; env?: Record<string, string>; cleanup?: () => Promise<void> | void }>;
  visit(client: Client, t: Transcript): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The built bin of a workspace package (its `bin` entry under dist/). */
export function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> };
  const first = Object.values(bin)[0];
  if (!first) throw new Error(`${pkg} has no bin`);
  return join(dirname(manifest), first);
}

/** The text of a tool result, with `[isError]` in front when it failed. */
export function textOf(result: unknown): string {
  const r = result as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  return r.isError ? `[isError] ${text}` : text;
}

/** Calls a tool, printing the call and its text reply; returns the result. */
export async function callTool(client: Client, t: Transcript, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  t.call(`tools/call ${name}`, args);
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  t.reply(textOf(result));
  return result;
}
