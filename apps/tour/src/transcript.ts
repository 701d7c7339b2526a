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

/** Long replies keep their head and their last two lines (where paging hints and errors sit). */
function clip(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_REPLY_LINES) return text;
  const head = lines.slice(0, MAX_REPLY_LINES - 2);
  return [...head, `… (${lines.length - head.length - 2} lines not shown)`, ...lines.slice(-2)].join('\n');
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
