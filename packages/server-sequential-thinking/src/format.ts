import { styleText } from 'node:util';
import stringWidth from 'string-width';
import type { ThoughtRecord } from './history.js';

type Color = 'yellow' | 'green' | 'blue';

/**
 * The reference's stderr box, drawn by display width rather than UTF-16 length: emoji and CJK
 * count as two columns, ANSI colour codes as none, and each line of a multi-line thought gets its
 * own row, so the right edge lines up in a terminal.
 */
export function formatThought(record: ThoughtRecord, color = false): string {
  const paint = (c: Color, text: string) => (color ? styleText(c, text) : text);
  let prefix: string;
  let context = '';
  if (record.isRevision) {
    prefix = paint('yellow', '🔄 Revision');
    context = ` (revising thought ${record.revisesThought})`;
  } else if (record.branchFromThought) {
    prefix = paint('green', '🌿 Branch');
    context = ` (from thought ${record.branchFromThought}, ID: ${record.branchId})`;
  } else {
    prefix = paint('blue', '💭 Thought');
  }
  const header = `${prefix} ${record.thoughtNumber}/${record.totalThoughts}${context}`;
  const lines = record.thought.replace(/\r\n?/g, '\n').replace(/\t/g, '  ').split('\n');
  const inner = Math.max(stringWidth(header), ...lines.map((l) => stringWidth(l))) + 2;
  const border = '─'.repeat(inner);
  const row = (text: string) => `│ ${text}${' '.repeat(inner - 2 - stringWidth(text))} │`;
  return [`┌${border}┐`, row(header), `├${border}┤`, ...lines.map(row), `└${border}┘`].join('\n');
}
