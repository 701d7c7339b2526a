/** `git_blame` (its definition: ../../tools/gitBlame.ts). */

import { structuredResult, ToolError } from '@mcpkit/protocol-core';
import { ANSWER_CAP } from '../../limits.js';
import { resolveWorkPath } from '../confine.js';
import type { GitContext } from '../context.js';
import { createAbbreviator } from '../diff/abbrev.js';
import { type BlameLine, blame } from '../diff/blame.js';
import { decodeByteString } from '../diff/patch.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { eastOffset } from '../format/python.js';
import { openRepo } from '../repo.js';

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

export interface BlameArgs {
  repo_path: string;
  file: string;
  rev?: string | undefined;
  start_line?: number | undefined;
  end_line?: number | undefined;
}

export async function blameFile({ repo_path, file, rev, start_line, end_line }: BlameArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  const revision = rev ?? 'HEAD';
  guardDash(revision, 'revision');
  const path = await resolveWorkPath(repo, file);
  if (path === '') throw new ToolError('file is the top of the work tree; give a file');
  const commit = await resolveObject(repo, revision, { kind: 'commit' });
  const whole = await blame(repo, commit, path, { from: 0, to: 0 });
  if (!whole) throw new ToolError(`no such path '${path}' in ${revision}`);
  const total = whole.total;
  const from = (start_line ?? 1) - 1;
  const to = end_line ?? total;
  if (from >= Math.max(total, 1) && (start_line ?? 1) > 1)
    throw new ToolError(`file ${path} has only ${total} line${total === 1 ? '' : 's'}`);
  if (to < from + 1 && total > 0) throw new ToolError(`end_line ${to} is before start_line ${from + 1}`);
  const { blamed } = (await blame(repo, commit, path, { from, to: Math.min(to, total) }))!;

  // git blame's default format: <oid> [<path>] (<author> <date> <line>) <content>
  const abbrev = await createAbbreviator(repo);
  const commits = new Set(blamed.map((b) => b.commit.oid));
  await abbrev.prefetch(commits);
  // Widths over every line asked for, as git does (not only over the part shown); no spread of a
  // 300k-line array into Math.max, which overflows the stack.
  let idWidth = 0;
  for (const c of commits) idWidth = Math.max(idWidth, abbrev.abbrev(c).length);
  idWidth += 1;
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
  const textLine = (b: BlameLine) => {
    const id = b.boundary ? `^${b.commit.oid.slice(0, idWidth - 1)}` : b.commit.oid.slice(0, idWidth);
    const name = b.commit.author.name;
    const content = decodeByteString(b.content);
    return (
      id +
      (showPath ? ` ${b.path}${' '.repeat(pathWidth - width(b.path))}` : '') +
      ` (${name}${' '.repeat(authorWidth - width(name))} ${blameDate(b.commit.author.timestamp, b.commit.author.timezoneOffset)} ` +
      `${String(b.line).padStart(digits)}) ${content.endsWith('\n') ? content : `${content}\n`}`
    );
  };
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
    content: decodeByteString(b.content).replace(/\n$/, ''),
  });
  // A long file is answered in parts that fit (text and lines separately), continued with start_line.
  // Only the lines that can be shown are rendered, counted as fitLines and fitItems (../limits.ts) count;
  // once either is full, the count shown is settled.
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
