/**
 * Text from servers and models is untrusted display input: before it reaches a terminal, take out
 * everything a terminal would act on instead of showing. That is escape sequences (CSI `ESC [ …`,
 * OSC `ESC ] … BEL|ST` such as hyperlinks and window titles, DCS/SOS/PM/APC strings, two-byte
 * `ESC x`), C0 controls other than `\n` and `\t` (so `\r` and `\b` cannot rewrite what was already
 * printed), DEL, C1 controls (U+0080–U+009F; the 8-bit CSI/OSC/DCS introducers take their sequence
 * with them), and the bidi override/isolate characters behind "Trojan source" spoofing
 * (U+202A–U+202E, U+2066–U+2069).
 */

/** The longest escape sequence the sanitizer waits for; a longer one is dropped and the text after it shown. */
export const MAX_ESCAPE_SEQUENCE_LENGTH = 64;

/** A sanitizer for text that arrives in pieces (a streamed reply). */
export interface TerminalSanitizer {
  /**
   * The safe text of `chunk`, at once. Only an escape sequence still open at the end of the chunk is
   * held back (it is dropped anyway; holding it just keeps its tail from showing in the next chunk).
   */
  push(chunk: string): string;
  /** The input ended: drop whatever sequence is still open and start over. Returns the text left (always safe). */
  end(): string;
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ST_C1 = 0x9c;

/** Where the sanitizer is: plain text, or inside one kind of escape sequence. */
type State = 'text' | 'esc' | 'escIntermediate' | 'csi' | 'string' | 'stringEsc';

/** Characters shown as they are: everything except controls and bidi overrides. */
function isPlain(code: number): boolean {
  if (code < 0x20) return code === 0x0a || code === 0x09;
  if (code < 0x7f) return true;
  if (code <= 0x9f) return false;
  if (code >= 0x202a && code <= 0x202e) return false;
  if (code >= 0x2066 && code <= 0x2069) return false;
  return true;
}

/** True for the C1 introducers of string sequences: DCS, SOS, OSC, PM, APC. */
function isC1StringIntroducer(code: number): boolean {
  return code === 0x90 || code === 0x98 || code === 0x9d || code === 0x9e || code === 0x9f;
}

/** Create a sanitizer for a stream of text chunks; see `sanitizeForTerminal` for what it removes. */
export function createTerminalSanitizer(): TerminalSanitizer {
  let state: State = 'text';
  // Characters of the open sequence so far (they are never shown).
  let length = 0;

  const enter = (next: State) => {
    state = next;
    length = 1;
  };

  /** One character inside a sequence; returns true when the character must be read again as text. */
  const step = (code: number): boolean => {
    length += 1;
    if (length > MAX_ESCAPE_SEQUENCE_LENGTH) {
      state = 'text';
      return true;
    }
    if (code === CAN || code === SUB) {
      // Cancels the sequence; the control itself is not shown either.
      state = 'text';
      return false;
    }
    switch (state) {
      case 'esc':
        if (code === 0x5b) state = 'csi';
        else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) state = 'string';
        else if (code >= 0x20 && code <= 0x2f) state = 'escIntermediate';
        else if (code >= 0x30 && code <= 0x7e) state = 'text';
        else if (code === ESC) enter('esc');
        else {
          state = 'text';
          return true;
        }
        return false;
      case 'escIntermediate':
        if (code >= 0x20 && code <= 0x2f) return false;
        state = 'text';
        return !(code >= 0x30 && code <= 0x7e);
      case 'csi':
        if (code >= 0x20 && code <= 0x3f) return false;
        state = 'text';
        return !(code >= 0x40 && code <= 0x7e);
      case 'string':
        if (code === BEL || code === ST_C1) state = 'text';
        else if (code === ESC) state = 'stringEsc';
        return false;
      case 'stringEsc':
        if (code === 0x5c) {
          state = 'text';
          return false;
        }
        // Any other ESC ends the string and starts a new sequence with this character.
        state = 'esc';
        length = 1;
        return step(code);
      default:
        return true;
    }
  };

  return {
    push(chunk) {
      let out = '';
      let runStart = -1;
      for (let i = 0; i < chunk.length; i++) {
        const code = chunk.charCodeAt(i);
        if (state === 'text') {
          if (isPlain(code)) {
            if (runStart < 0) runStart = i;
            continue;
          }
          if (runStart >= 0) {
            out += chunk.slice(runStart, i);
            runStart = -1;
          }
          if (code === ESC) enter('esc');
          else if (code === 0x9b) enter('csi');
          else if (isC1StringIntroducer(code)) enter('string');
          continue;
        }
        if (step(code)) i -= 1;
      }
      if (runStart >= 0) out += chunk.slice(runStart);
      return out;
    },
    end() {
      state = 'text';
      length = 0;
      return '';
    },
  };
}

/**
 * `text` without anything a terminal would act on (escape sequences, controls other than `\n` and
 * `\t`, C1 controls, bidi overrides and isolates). An escape sequence that never ends is dropped up
 * to `MAX_ESCAPE_SEQUENCE_LENGTH` characters; the text after that is shown.
 */
export function sanitizeForTerminal(text: string): string {
  const sanitizer = createTerminalSanitizer();
  return sanitizer.push(text) + sanitizer.end();
}
