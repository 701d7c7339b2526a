/**
 * The terminal as the agent's host: approvals and elicitation forms through the shared prompter
 * (only when there is a TTY to ask), activity on stderr. Everything a server or the model says is
 * sanitised before it reaches the terminal.
 */
import type { Writable } from 'node:stream';
import type { AgentHost } from '@mcpkit/agent';
import { askApproval, askSamplingApproval } from './terminal/approval.js';
import { promptElicitation } from './terminal/form.js';
import type { Prompter } from './terminal/prompter.js';
import { formatLog, formatNotice, formatProgress, formatTaskStatus } from './terminal/render.js';
import { sanitizeForTerminal } from './terminal/sanitize.js';

export interface TerminalHostOptions {
  /** Absent: nobody to ask, so approvals are denied and forms declined (fail closed). */
  prompter?: Prompter;
  stderr: Writable;
  quiet: boolean;
  color: boolean;
  /** `--yes`: sampling requests are allowed without asking too (and still shown). */
  yes: boolean;
}

export function createTerminalHost(options: TerminalHostOptions): AgentHost {
  const { prompter, stderr, quiet, color } = options;
  const line = (text: string) => stderr.write(`${text}\n`);
  return {
    approveToolCall: prompter
      ? async (request) => {
          const answer = await askApproval(prompter, request);
          return answer === 'always' ? 'always' : answer === 'allow';
        }
      : undefined,
    elicit: prompter ? (server, params) => promptElicitation(prompter, server, params as never) : undefined,
    approveSampling: async (request) => {
      if (options.yes) {
        line(formatNotice(`${request.server} uses the model (sampling, allowed by --yes)`, { color }));
        return true;
      }
      return prompter ? askSamplingApproval(prompter, request) : false;
    },
    showSamplingResult(server, text) {
      if (!quiet) line(formatNotice(`${server} got a sampled reply (${text.length} characters)`, { color }));
    },
    onLog(server, level, data) {
      if (!quiet) line(formatLog(server, level, data, { color }));
    },
    onProgress(server, tool, progress) {
      if (!quiet) line(formatProgress(server, tool, progress, { color }));
    },
    onTaskStatus(server, tool, update) {
      if (!quiet || update.status === 'input_required') line(formatTaskStatus(server, tool, update, { color }));
    },
    onNotice(text) {
      line(formatNotice(text, { color }));
    },
    onServerStderr(server, text) {
      if (!quiet) line(`[${server}] ${sanitizeForTerminal(text)}`);
    },
  };
}
