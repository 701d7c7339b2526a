import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import type { BlameLine } from '../engine/diff/blame.js';
import { eastOffset } from '../engine/format/python.js';
import type { BlameData } from '../engine/ops/blame.js';
import { ANSWER_CAP } from '../limits.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';

const gitBlameInput = {
  repo_path: repoPath,
  file: z.string().meta({ title: 'File' }).describe('The file, relative to the top of the work tree'),
  rev: z.string().optional().meta({ title: 'Rev' }).describe('Revision whose version of the file is blamed (default HEAD)'),
  start_line: z.number().int().min(1).optional().meta({ title: 'Start Line' }).describe('First line to blame (1-based, default 1)'),
  end_line: z.number().int().min(1).optional().meta({ title: 'End Line' }).describe('Last line to blame (default: the last line)'),
};

export const gitBlame = defineTool({
  name: 'git_blame',
  title: 'Blame lines of a file',
  description:
    'Shows which commit last changed each line of a file (git blame): for each line its commit, author, date and summary. ' +
    'Give start_line/end_line to blame part of the file.',
  input: gitBlameInput,
  output: {
    lines: z.array(
      z.object({
        line: z.number().int().describe('Line number in the file at rev'),
        orig_line: z.number().int().describe('Line number in the file as that commit has it'),
        commit: z.string().describe('The commit that last changed the line'),
        author: z.string(),
        author_email: z.string(),
        author_time: z.number().int().describe('Unix time (seconds)'),
        author_tz: z.string().describe('Offset, e.g. +0100'),
        summary: z.string().describe("The commit message's first line"),
        path: z.string().describe('The path in that commit (differs after a rename)'),
        boundary: z.boolean().describe('The commit is a root commit (git shows ^ before it)'),
        content: z.string().describe('The line, without its newline'),
      }),
    ),
  },
  annotations: READ_ONLY,
  // A long file's history may take longer than a client waits: a client that opts in gets a task (2026-07-28).
  task: 'optional',
  handler: async ({ repo_path, ...options }, ctx: GitContext, extra) =>
    blameAnswer(await (await openRepository(ctx, repo_path)).blame({ ...options, signal: extra.mcpReq.signal })),
});

const pad2 = (n: number) => String(n).padStart(2, '0');

/** `2024-01-15 14:30:25 +0100`, in the author's own offset (git blame's default date). */
function blameDate(seconds: number, timezoneOffset: number): string {
  const east = eastOffset(timezoneOffset);
  const d = new Date((seconds + east * 60) * 1000);
  const abs = Math.abs(east);
  const tz = `${east < 0 ? '-' : '+'}${pad2(Math.trunc(abs / 60))}${pad2(abs % 60)}`;
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${tz}`;
}

function tzText(timezoneOffset: number): string {
  return blameDate(0, timezoneOffset).slice(-5);
}

/** Display width of a name (code points; git counts East Asian wide characters as 2, this does not). */
const width = (s: string) => [...s].length;

/** The line formatter of git blame's default format: <oid> [<path>] (<author> <date> <line>) <content>. */
function lineFormatter({ path, lines: blamed, abbrevLength }: BlameData): (b: BlameLine) => string {
  // Widths over every line asked for, as git does (not only over the part shown); no spread of a
  // 300k-line array into Math.max, which overflows the stack.
  const idWidth = abbrevLength + 1;
  const showPath = blamed.some((b) => b.path !== path);
  let pathWidth = 0;
  let authorWidth = 0;
  let lastLine = 0;
  const widths = new Map<string, number>();
  const widthOf = (s: string) => {
    let w = widths.get(s);
    if (w === undefined) {
      w = width(s);
      widths.set(s, w);
    }
    return w;
  };
  for (const b of blamed) {
    pathWidth = Math.max(pathWidth, widthOf(b.path));
    authorWidth = Math.max(authorWidth, widthOf(b.commit.author.name));
    lastLine = Math.max(lastLine, b.line);
  }
  const digits = String(lastLine).length;
  return (b: BlameLine) => {
    const id = b.boundary ? `^${b.commit.oid.slice(0, idWidth - 1)}` : b.commit.oid.slice(0, idWidth);
    const name = b.commit.author.name;
    const content = b.content;
    return (
      id +
      (showPath ? ` ${b.path}${' '.repeat(pathWidth - width(b.path))}` : '') +
      ` (${name}${' '.repeat(authorWidth - width(name))} ${blameDate(b.commit.author.timestamp, b.commit.author.timezoneOffset)} ` +
      `${String(b.line).padStart(digits)}) ${content.endsWith('\n') ? content : `${content}\n`}`
    );
  };
}

const item = (b: BlameLine) => ({
  line: b.line,
  orig_line: b.orig_line,
  commit: b.commit.oid,
  author: b.commit.author.name,
  author_email: b.commit.author.email,
  author_time: b.commit.author.timestamp,
  author_tz: tzText(b.commit.author.timezoneOffset),
  summary: b.commit.summary,
  path: b.path,
  boundary: b.boundary,
  content: b.content.replace(/\n$/, ''),
});

/**
 * A long file is answered in parts that fit (text and lines separately), continued with start_line.
 * Only the lines that can be shown are rendered, counted as fitLines and fitItems (../limits.ts) count;
 * once either is full, the count shown is settled.
 */
function blameAnswer(data: BlameData) {
  const blamed = data.lines;
  const textLine = lineFormatter(data);
  const rendered: string[] = [];
  const lines: ReturnType<typeof item>[] = [];
  let textUsed = 0;
  let itemsUsed = 2;
  let nText = 0;
  let nItems = 0;
  let textFull = false;
  let itemsFull = false;
  for (let i = 0; i < blamed.length && !textFull && !itemsFull; i++) {
    const r = textLine(blamed[i]!).replace(/\n$/, '');
    const it = item(blamed[i]!);
    rendered.push(r);
    lines.push(it);
    if (!textFull) {
      textUsed += Buffer.byteLength(r) + (nText > 0 ? 1 : 0);
      if (nText > 0 && textUsed > ANSWER_CAP) textFull = true;
      else nText++;
    }
    if (!itemsFull) {
      itemsUsed += Buffer.byteLength(JSON.stringify(it)) + 1;
      if (itemsUsed > ANSWER_CAP) itemsFull = true;
      else nItems++;
    }
  }
  const n = Math.max(Math.min(nText, nItems), Math.min(1, blamed.length));
  let text = rendered.slice(0, n).join('\n');
  if (n < blamed.length) {
    const last = lines[n - 1]!.line;
    text += `\n[Lines ${lines[0]!.line}-${last} of ${blamed.at(-1)!.line} shown (answers are capped at ${ANSWER_CAP} bytes): call again with start_line ${last + 1} for the rest]`;
  }
  return structuredResult({ lines: n < lines.length ? lines.slice(0, n) : lines }, text);
}
