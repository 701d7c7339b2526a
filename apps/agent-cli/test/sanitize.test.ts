import { describe, expect, it } from 'vitest';
import { createTerminalSanitizer, MAX_ESCAPE_SEQUENCE_LENGTH, sanitizeForTerminal } from '../src/terminal/sanitize.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const ESC = '\u001b';

/** Feed `chunks` one by one and return what came out of each push, plus end(). */
function stream(chunks: string[]): { outputs: string[]; text: string } {
  const sanitizer = createTerminalSanitizer();
  const outputs = chunks.map((chunk) => sanitizer.push(chunk));
  outputs.push(sanitizer.end());
  return { outputs, text: outputs.join('') };
}

describe('sanitizeForTerminal', () => {
  it('passes plain text through unchanged, newlines, tabs and non-ASCII included', () => {
    const text = 'Hello, world!\n\tcafé 日本語 🎉 — “quotes” ‹›';
    expect(sanitizeForTerminal(text)).toBe(text);
  });

  it('strips CSI sequences (colours, cursor movement, erase, private modes)', () => {
    expect(sanitizeForTerminal(`${ESC}[31mred${ESC}[0m`)).toBe('red');
    expect(sanitizeForTerminal(`a${ESC}[2J${ESC}[H${ESC}[10;20Hb`)).toBe('ab');
    expect(sanitizeForTerminal(`x${ESC}[?1049hy${ESC}[?25l`)).toBe('xy');
    expect(sanitizeForTerminal(`${ESC}[38;2;255;0;0mtrue colour`)).toBe('true colour');
    expect(sanitizeForTerminal(`${ESC}[1 q!`)).toBe('!');
  });

  it('strips OSC sequences ended by BEL or ST (titles, hyperlinks, clipboard)', () => {
    expect(sanitizeForTerminal(`${ESC}]0;evil title\u0007after`)).toBe('after');
    expect(sanitizeForTerminal(`${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`)).toBe('click');
    expect(sanitizeForTerminal(`${ESC}]52;c;cm0gLXJmIH4=\u0007ok`)).toBe('ok');
  });

  it('strips DCS, APC, PM and SOS strings', () => {
    expect(sanitizeForTerminal(`a${ESC}Pq#0;2;0;0;0${ESC}\\b`)).toBe('ab');
    expect(sanitizeForTerminal(`a${ESC}_Gf=100;AAAA${ESC}\\b`)).toBe('ab');
    expect(sanitizeForTerminal(`a${ESC}^private${ESC}\\b${ESC}Xsos${ESC}\\c`)).toBe('abc');
  });

  it('strips two-character and intermediate escapes (reset, charset, keypad)', () => {
    expect(sanitizeForTerminal(`a${ESC}cb`)).toBe('ab');
    expect(sanitizeForTerminal(`a${ESC}(0b${ESC}(Bc`)).toBe('abc');
    expect(sanitizeForTerminal(`a${ESC}#8b${ESC}=c${ESC}7d${ESC}8`)).toBe('abcd');
  });

  it('drops a lone ESC before something that is not a sequence, keeping the text', () => {
    expect(sanitizeForTerminal(`a${ESC}\nb`)).toBe('a\nb');
    expect(sanitizeForTerminal(`a${ESC}é`)).toBe('aé');
    expect(sanitizeForTerminal(`a${ESC}`)).toBe('a');
    expect(sanitizeForTerminal(`a${ESC}${ESC}[1mb`)).toBe('ab');
  });

  it('ends a CSI at a character that cannot be part of it and keeps that character', () => {
    expect(sanitizeForTerminal(`a${ESC}[12\nb`)).toBe('a\nb');
    expect(sanitizeForTerminal(`a${ESC}[12ébc`)).toBe('aébc');
  });

  it('cancels a sequence at CAN or SUB', () => {
    expect(sanitizeForTerminal(`a${ESC}[12\u0018b`)).toBe('ab');
    expect(sanitizeForTerminal(`a${ESC}]0;t\u001ab`)).toBe('ab');
  });

  it('strips C0 controls except newline and tab: CR, backspace, BEL, NUL, form feed, vertical tab', () => {
    expect(sanitizeForTerminal('safe\rEVIL')).toBe('safeEVIL');
    expect(sanitizeForTerminal('abc\b\b\bxyz')).toBe('abcxyz');
    expect(sanitizeForTerminal('a\u0007b\u0000c\u000cd\u000be\u0001f')).toBe('abcdef');
    expect(sanitizeForTerminal('line1\r\nline2\tcol')).toBe('line1\nline2\tcol');
  });

  it('strips DEL and C1 controls; 8-bit CSI and OSC take their sequence with them', () => {
    expect(sanitizeForTerminal('a\u007fb\u0085c\u0084d')).toBe('abcd');
    expect(sanitizeForTerminal('a\u009b31mb')).toBe('ab');
    expect(sanitizeForTerminal('a\u009d0;title\u0007b')).toBe('ab');
    expect(sanitizeForTerminal('a\u009d0;title\u009cb')).toBe('ab');
    expect(sanitizeForTerminal('a\u0090dcs\u009cb')).toBe('ab');
  });

  it('strips bidi overrides and isolates (Trojan source)', () => {
    const trojan = 'access = "user\u202e \u2066// admin only\u2069 \u2066"';
    expect(sanitizeForTerminal(trojan)).toBe('access = "user // admin only "');
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(sanitizeForTerminal(`x${String.fromCharCode(code)}y`)).toBe('xy');
    }
    // Marks that are not overrides stay.
    expect(sanitizeForTerminal('a\u200fb')).toBe('a\u200fb');
  });

  it('drops an unterminated sequence only up to the bound, then shows the text', () => {
    const tail = 'visible';
    const body = 'x'.repeat(MAX_ESCAPE_SEQUENCE_LENGTH - 2);
    expect(sanitizeForTerminal(`${ESC}]${body}${tail}`)).toBe(tail);
    expect(sanitizeForTerminal(`${ESC}]0;never ends`)).toBe('');
  });

  it('leaves no ESC or control character in arbitrary input', () => {
    let input = '';
    for (let code = 0; code < 0x2100; code++) input += String.fromCharCode(code);
    const out = sanitizeForTerminal(input.repeat(2));
    expect(out).not.toMatch(UNSAFE);
  });
});

describe('createTerminalSanitizer', () => {
  it('returns plain text at once, with nothing held back', () => {
    const sanitizer = createTerminalSanitizer();
    expect(sanitizer.push('Hello ')).toBe('Hello ');
    expect(sanitizer.push('world')).toBe('world');
    expect(sanitizer.push('\n')).toBe('\n');
    expect(sanitizer.end()).toBe('');
  });

  it('holds a sequence split across chunks and drops it whole', () => {
    const { outputs, text } = stream(['red: ', ESC, '[3', '1m', 'RED', `${ESC}[`, '0m done']);
    expect(outputs).toEqual(['red: ', '', '', '', 'RED', '', ' done', '']);
    expect(text).toBe('red: RED done');
  });

  it('holds an OSC split inside its terminator', () => {
    expect(stream([`a${ESC}]8;;https://x`, `.example${ESC}`, '\\link', `${ESC}]8;;${ESC}\\`]).text).toBe('alink');
    expect(stream([`a${ESC}]0;title`, '\u0007b']).text).toBe('ab');
  });

  it('gives the same result for every way of cutting the input', () => {
    const input = `A${ESC}[1;31mB${ESC}]0;t\u0007C\u009b2JD${ESC}(0E\r\u202eF${ESC}]8;;u${ESC}\\G${ESC}\nH`;
    const whole = sanitizeForTerminal(input);
    expect(whole).toBe('ABCDEFG\nH');
    for (let i = 0; i <= input.length; i++) {
      for (let j = i; j <= input.length; j++) {
        expect(stream([input.slice(0, i), input.slice(i, j), input.slice(j)]).text).toBe(whole);
      }
    }
  });

  it('drops a sequence left open at end() and starts clean afterwards', () => {
    const sanitizer = createTerminalSanitizer();
    expect(sanitizer.push(`text${ESC}[12`)).toBe('text');
    expect(sanitizer.end()).toBe('');
    expect(sanitizer.push('31mplain')).toBe('31mplain');
  });

  it('gives up on an overlong sequence and shows what follows', () => {
    const sanitizer = createTerminalSanitizer();
    expect(sanitizer.push(`${ESC}]`)).toBe('');
    expect(sanitizer.push('y'.repeat(MAX_ESCAPE_SEQUENCE_LENGTH - 2))).toBe('');
    expect(sanitizer.push('shown')).toBe('shown');
  });
});
