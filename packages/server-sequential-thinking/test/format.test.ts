import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatThought } from '../src/format.js';

describe('formatThought', () => {
  const widths = (box: string) => box.split('\n').map((l) => stringWidth(l));

  it('aligns the right edge for emoji, CJK and multi-line thoughts', () => {
    const box = formatThought({ thought: '思考 🎉 mixed\nsecond line\n三', thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true });
    const lines = box.split('\n');
    expect(lines).toHaveLength(7);
    expect(new Set(widths(box)).size).toBe(1);
    expect(lines[3]).toMatch(/^│ 思考 🎉 mixed +│$/);
  });

  it('measures widths without ANSI colour codes', () => {
    const plain = formatThought({
      thought: 'x',
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
      isRevision: true,
      revisesThought: 1,
    });
    const colored = formatThought(
      { thought: 'x', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false, isRevision: true, revisesThought: 1 },
      true,
    );
    expect(widths(colored)).toEqual(widths(plain));
    expect(new Set(widths(plain)).size).toBe(1);
  });
});
