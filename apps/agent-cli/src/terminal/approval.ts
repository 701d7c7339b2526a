/**
 * The questions the agent asks before acting for a server: may this tool run with these
 * arguments, and may this server use the model (sampling). Everything shown is sanitised and cut
 * to a length; anything but a clear yes is a no, and so is end of input.
 */
import type { ToolAnnotations } from '@mcpkit/agent';
import type { Prompter } from './prompter.js';
import { formatJsonPreview, oneLine } from './render.js';

/** The tool asked about (structurally `ToolEntry` from `@mcpkit/agent`). */
interface ApprovalTool {
  /** The namespaced name (`server__tool`). */
  name: string;
  server: string;
  /** The server's own tool name. */
  tool: string;
  title?: string;
  annotations?: ToolAnnotations;
}

/** A tool call waiting for the user's approval (structurally `ApprovalRequest` from `@mcpkit/agent`). */
export interface ToolApprovalRequest {
  tool: ApprovalTool;
  args: Record<string, unknown>;
}

/** A server's request to use the model (structurally `SamplingApprovalRequest` from `@mcpkit/agent`). */
export interface SamplingApprovalPrompt {
  server: string;
  messages: readonly { role: string; content: string }[];
  systemPrompt?: string;
  maxTokens?: number;
}

/** The user's answer to a tool approval: this call, no, or this tool for the rest of the session. */
export type ApprovalAnswer = 'allow' | 'deny' | 'always';

/** Longest argument JSON shown in a tool approval. */
const APPROVAL_ARGS_CHARS = 500;
/** Longest message text shown in a sampling approval (per message). */
const SAMPLING_MESSAGE_CHARS = 300;
/** Conversation messages shown in a sampling approval (the last ones; the count of the others is given). System messages are always shown. */
const SAMPLING_MESSAGES_SHOWN = 6;

/**
 * What the tool says about itself (`annotations`, which are the server's claims, not guarantees):
 * `read-only`, `destructive`, `writes` (not read-only, not destructive), `may be destructive` (not
 * read-only, nothing said about destruction), plus `open world`. Nothing when there are no annotations.
 */
export function describeToolEffects(annotations: ToolAnnotations | undefined): string[] {
  if (!annotations) return [];
  const effects: string[] = [];
  if (annotations.readOnlyHint === true) effects.push('read-only');
  else if (annotations.destructiveHint === true) effects.push('destructive');
  else if (annotations.destructiveHint === false) effects.push('writes');
  // Not read-only and silent about destruction: the spec's default is destructive.
  else if (annotations.readOnlyHint === false) effects.push('may be destructive');
  if (annotations.openWorldHint === true) effects.push('open world');
  return effects;
}

/**
 * Ask whether a tool call may run: shows
 * `Allow memory › create_entities (writes) with {"entities":[…]}?` and asks
 * `[y]es / [n]o / [a]lways for this tool`. An unclear answer is asked again; an empty answer, `:cancel`,
 * Ctrl-C and end of input deny.
 */
export async function askApproval(prompter: Prompter, request: ToolApprovalRequest): Promise<ApprovalAnswer> {
  const { tool, args } = request;
  const effects = describeToolEffects(tool.annotations);
  const label = `${oneLine(tool.server, 80)} › ${oneLine(tool.tool, 80)}`;
  const argsText =
    Object.keys(args ?? {}).length > 0 ? ` with ${formatJsonPreview(args, APPROVAL_ARGS_CHARS, { collapse: false })}` : ' (no arguments)';
  prompter.write(`Allow ${label}${effects.length > 0 ? ` (${effects.join(', ')})` : ''}${argsText}?\n`);
  for (;;) {
    const line = await prompter.question('[y]es / [n]o / [a]lways for this tool: ');
    if (line === null) return 'deny';
    const answer = line.trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') return 'allow';
    if (answer === 'a' || answer === 'always') return 'always';
    if (answer === '' || answer === 'n' || answer === 'no' || answer === ':cancel' || answer === ':decline') return 'deny';
    prompter.write('  answer y, n or a\n');
  }
}

/**
 * Ask whether a server may use the model (sampling): shows the server, the token cap, the system
 * prompt and the last few messages (each cut to one line), then asks `[y/N]`. Only `y`/`yes`
 * allows; an empty answer, `:cancel`, Ctrl-C and end of input refuse.
 */
export async function askSamplingApproval(prompter: Prompter, request: SamplingApprovalPrompt): Promise<boolean> {
  const server = oneLine(request.server, 80);
  const cap = request.maxTokens !== undefined ? `at most ${request.maxTokens} tokens` : 'no token cap given';
  prompter.write(`${server} wants to use the model (sampling, ${cap}):\n`);
  // The system prompt is always shown; of the conversation, the last few messages.
  const system = request.messages.filter((m) => m.role === 'system');
  if (system.length === 0 && request.systemPrompt) system.push({ role: 'system', content: request.systemPrompt });
  const conversation = request.messages.filter((m) => m.role !== 'system');
  const hidden = Math.max(0, conversation.length - SAMPLING_MESSAGES_SHOWN);
  const show = (message: { role: string; content: string }) =>
    prompter.write(`  ${oneLine(message.role, 20)}: ${oneLine(message.content, SAMPLING_MESSAGE_CHARS)}\n`);
  system.forEach(show);
  if (hidden > 0) prompter.write(`  … ${hidden} earlier message(s) not shown\n`);
  conversation.slice(hidden).forEach(show);
  for (;;) {
    const line = await prompter.question('Send this to the model? [y/N]: ');
    if (line === null) return false;
    const answer = line.trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') return true;
    if (answer === '' || answer === 'n' || answer === 'no' || answer === ':cancel' || answer === ':decline') return false;
    prompter.write('  answer y or n\n');
  }
}
