/**
 * The one line reader of the CLI, shared by the chat, tool approvals and elicitation forms. It
 * works on a TTY (line editing, history) and on a pipe (lines are read from it in order).
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Asks the user for lines and shows text. */
export interface Prompter {
  /**
   * Show `prompt` and wait for one line (without its line ending). `null`: no answer will come —
   * end of input, the prompter was closed, or the user pressed Ctrl-C at the prompt.
   */
  question(prompt: string): Promise<string | null>;
  /** Show text as it is (the caller sanitises what is untrusted). */
  write(text: string): void;
  /** Stop reading; pending and later questions get `null`. Safe to call twice. */
  close(): void;
}

/** Options of `createReadlinePrompter`. */
export interface ReadlinePrompterOptions {
  /**
   * Ctrl-C on a terminal while no question is waiting (a run is going on). Readline reads the TTY
   * in raw mode, so the key never becomes a SIGINT by itself; by default it is passed on as one
   * (to the process's SIGINT listeners, or the default action when there are none).
   */
  onInterrupt?: () => void;
  /** Line-edit as a terminal. Default: when `input` and `output` are both TTYs. */
  terminal?: boolean;
}

function raiseSigint(): void {
  if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
  else process.kill(process.pid, 'SIGINT');
}

/**
 * A prompter on one `node:readline` interface over `input` (prompts and text go to `output`,
 * usually stderr so stdout carries only the reply). Lines that arrive before they are asked for
 * (a pipe, typing ahead) are kept and answer the next questions in order; questions asked at the
 * same time are answered one after another.
 */
export function createReadlinePrompter(
  input: Readable & { isTTY?: boolean },
  output: Writable & { isTTY?: boolean },
  options: ReadlinePrompterOptions = {},
): Prompter {
  const terminal = options.terminal ?? (input.isTTY === true && output.isTTY === true);
  const rl = createInterface({ input, output, terminal, crlfDelay: Number.POSITIVE_INFINITY });
  const lines: string[] = [];
  const waiting: Array<{ prompt: string; resolve: (line: string | null) => void }> = [];
  let closed = false;

  const showPrompt = () => {
    const next = waiting[0];
    if (!next || closed) return;
    rl.setPrompt(next.prompt);
    rl.prompt();
  };

  const answer = (line: string | null) => {
    const next = waiting.shift();
    if (!next) return;
    // A pipe is not echoed: end the prompt's line so what follows starts on its own.
    if (!terminal && line !== null) output.write('\n');
    next.resolve(line);
    showPrompt();
  };

  rl.on('line', (line) => {
    if (waiting.length > 0) answer(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    closed = true;
    while (waiting.length > 0) answer(null);
  });
  rl.on('SIGINT', () => {
    if (waiting.length > 0) {
      // Forget what was typed so far, so it does not start the next answer.
      rl.write(null, { ctrl: true, name: 'e' });
      rl.write(null, { ctrl: true, name: 'u' });
      output.write('\n');
      answer(null);
      return;
    }
    (options.onInterrupt ?? raiseSigint)();
  });

  return {
    question(prompt) {
      // Lines are only kept while nobody waits, so a kept line is the answer to this question.
      const queued = lines.shift();
      if (queued !== undefined) {
        output.write(terminal ? `${prompt}${queued}\n` : `${prompt}\n`);
        return Promise.resolve(queued);
      }
      if (closed) return Promise.resolve(null);
      return new Promise((resolve) => {
        waiting.push({ prompt, resolve });
        if (waiting.length === 1) showPrompt();
      });
    },
    write(text) {
      output.write(text);
    },
    close() {
      if (!closed) rl.close();
      closed = true;
    },
  };
}
