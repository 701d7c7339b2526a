/**
 * What a child's stderr says about why it died. Node ends an uncaught error with its stack and a
 * `Node.js v20.x` line, so the last line alone is useless; the meaningful lines are the error's
 * message (the lines just above the first `    at ` frame). Other programs: the last line.
 */

/** How many trailing stderr lines are kept for the summary. */
const KEPT_LINES = 40;
/** How much of the summary an error message quotes. */
const MAX_QUOTED = 300;
/** At most this many message lines (a multi-line error message). */
const MAX_MESSAGE_LINES = 3;

const STACK_FRAME = /^\s+at\s/;
const NODE_VERSION = /^Node\.js v\d+\.\d+\.\d+\s*$/;

export interface StderrSummary {
  /** One cut line: the thrown error's message line(s) when a stack trace is there, else the last line. */
  text: string;
  /** True when `text` is the last line as it was written (no error found above it). */
  isLastLine: boolean;
}

/** A rolling tail of stderr lines, summarised on demand. */
export interface StderrTail {
  push(line: string): void;
  summary(): StderrSummary | undefined;
}

function cut(text: string): string {
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED - 3)}...` : text;
}

/** The message lines of the last stack trace in `lines`, or undefined when there is none. */
export function thrownErrorLines(lines: readonly string[]): string[] | undefined {
  // The last stack: its first frame is the first `at` line of the last run of `at` lines.
  let lastFrame = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (STACK_FRAME.test(lines[i] as string)) {
      lastFrame = i;
      break;
    }
  }
  if (lastFrame < 0) return undefined;
  let firstFrame = lastFrame;
  while (firstFrame > 0 && STACK_FRAME.test(lines[firstFrame - 1] as string)) firstFrame--;
  // The message: the lines above the first frame, up to the caret line (`    ^`) or the source line above it.
  const message: string[] = [];
  for (let i = firstFrame - 1; i >= 0 && message.length < MAX_MESSAGE_LINES; i--) {
    const line = lines[i] as string;
    if (/^\s*\^+\s*$/.test(line) || STACK_FRAME.test(line)) break;
    message.unshift(line.trim());
    // An `Error:`-style first line ends the message (Error, TypeError, a custom `ConfigError: ...`).
    if (/^\s*(?:Uncaught\s+)?[A-Z][\w$.]*(?:Error|Exception)\b/.test(line)) break;
  }
  return message.length > 0 ? message : undefined;
}

export function createStderrTail(): StderrTail {
  const lines: string[] = [];
  return {
    push(line) {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
    },
    summary() {
      const last = lines.at(-1);
      if (last === undefined) return undefined;
      const thrown = thrownErrorLines(lines);
      if (thrown) return { text: cut(thrown.join(' ')), isLastLine: false };
      // Without a stack, skip Node's version footer if something came before it.
      const meaningful = [...lines].reverse().find((line) => !NODE_VERSION.test(line)) ?? last;
      return { text: cut(meaningful), isLastLine: meaningful === last };
    },
  };
}
