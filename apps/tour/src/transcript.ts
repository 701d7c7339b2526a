/** Prints a readable transcript of what the tour sends and gets back. */
export interface Transcript {
  heading(text: string): void;
  note(text: string): void;
  call(method: string, detail?: unknown): void;
  reply(text: string): void;
  lines(): string[];
}

const MAX_REPLY_LINES = 14;

function indent(text: string, first: string, rest = ' '.repeat(first.length)): string {
  return text
    .split('\n')
    .map((l, i) => (i === 0 ? first : rest) + l)
    .join('\n');
}

function clip(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_REPLY_LINES) return text;
  return [...lines.slice(0, MAX_REPLY_LINES), `… (${lines.length - MAX_REPLY_LINES} more lines)`].join('\n');
}

export function createTranscript(write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Transcript {
  const all: string[] = [];
  const out = (line: string) => {
    all.push(line);
    write(line);
  };
  return {
    heading: (text) => {
      out('');
      out(`━━ ${text} ${'━'.repeat(Math.max(0, 70 - text.length))}`);
    },
    note: (text) => out(indent(text, '   ')),
    call: (method, detail) => out(`→ ${method}${detail === undefined ? '' : ` ${JSON.stringify(detail)}`}`),
    reply: (text) => out(indent(clip(text), '  ← ')),
    lines: () => all,
  };
}
