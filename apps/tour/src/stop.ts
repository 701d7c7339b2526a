import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { Transcript } from './transcript.js';

/** What a stop sets up before its server starts; `state` is handed to `visit`. */
interface Prepared<State> {
  args?: string[];
  env?: Record<string, string>;
  cleanup?: () => Promise<void> | void;
  state: State;
}

/** One server on the tour: how to start it and what to show. */
export interface Stop<State = unknown> {
  title: string;
  /** The workspace package whose built bin is started. */
  pkg: string;
  /** Extra CLI args and env for the bin; may set up temp dirs or local servers first. */
  prepare(): Promise<Prepared<State>>;
  visit(client: Client, t: Transcript, state: State): Promise<void>;
}

/** A stop that is not one server behind one client (the agent): it runs the whole visit itself. */
export interface StandaloneStop {
  title: string;
  /** The workspace packages whose built bins the stop starts (checked before it runs). */
  pkgs: string[];
  run(t: Transcript): Promise<void>;
}

/** Declares a stop with its state type kept. */
export function defineStop<State>(stop: Stop<State>): Stop<State> {
  return stop;
}

const require = createRequire(import.meta.url);

/** The bin of a workspace package (its `bin` entry: a shim that runs the built dist/index.js). */
export function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> };
  const first = Object.values(bin)[0];
  if (!first) throw new Error(`${pkg} has no bin`);
  return join(dirname(manifest), first);
}

/** The text of a tool result, with `[isError]` in front when it failed. */
function textOf(result: unknown): string {
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
