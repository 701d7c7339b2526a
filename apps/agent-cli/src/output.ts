/**
 * Where a run's events go: reply text to stdout as it arrives (sanitised, never buffered beyond an
 * unfinished escape sequence), tool activity to stderr, and everything into the transcript.
 */
import type { Writable } from 'node:stream';
import type { AgentEvent } from '@mcpkit/agent';
import type { InterruptHandler } from './interrupt.js';
import type { CliOptions } from './options.js';
import { formatNotice, formatToolResult, formatToolStart } from './terminal/render.js';
import { createTerminalSanitizer } from './terminal/sanitize.js';

/** What a run (one-shot or chat) needs from the CLI around it. */
export interface RunIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  options: CliOptions;
  interrupts: InterruptHandler;
}

export interface EventPrinterOptions {
  stdout: Writable;
  stderr: Writable;
  /** Reply text goes to stdout (false with --json, which prints the transcript instead). */
  showText: boolean;
  quiet: boolean;
  color: boolean;
}

export interface EventPrinter {
  print(event: AgentEvent): void;
  /** End of the run: flush, and end the reply with a newline if it had text. */
  finish(): void;
}

export function createEventPrinter(options: EventPrinterOptions): EventPrinter {
  const { stdout, stderr, showText, quiet, color } = options;
  let sanitizer = createTerminalSanitizer();
  let lineOpen = false;
  const endLine = () => {
    const rest = sanitizer.end();
    if (rest && showText) stdout.write(rest);
    sanitizer = createTerminalSanitizer();
    if (lineOpen && showText) stdout.write('\n');
    lineOpen = false;
  };
  const info = (text: string) => {
    if (!quiet) stderr.write(`${text}\n`);
  };
  return {
    print(event) {
      switch (event.type) {
        case 'text': {
          if (!showText) return;
          const safe = sanitizer.push(event.text);
          if (safe) {
            stdout.write(safe);
            lineOpen = !safe.endsWith('\n');
          }
          return;
        }
        case 'reply_end':
          endLine();
          return;
        case 'tool_call':
          info(formatToolStart(event.call, event.tool, { color }));
          return;
        case 'tool_result':
          info(formatToolResult(event.outcome, { color }));
          return;
        case 'notice':
          stderr.write(`${formatNotice(event.text, { color })}\n`);
          return;
        default:
          return;
      }
    },
    finish() {
      endLine();
    },
  };
}
