/**
 * JSON with comments, as VS Code's `mcp.json` allows: `//` and `/* *\/` comments and trailing
 * commas are blanked out (same length, newlines kept) so positions still point into the file, and
 * a parse failure is reported with its line and column.
 */

/** `text` with comments and trailing commas replaced by spaces; strings are left alone. */
export function blankJsonComments(text: string): string {
  const out = text.split('');
  let i = 0;
  /** Index of the last comma outside strings and comments not yet followed by a value. */
  let pendingComma = -1;
  while (i < text.length) {
    const char = text[i];
    const next = text[i + 1];
    if (char === '"') {
      pendingComma = -1;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (char === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') out[i++] = ' ';
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      for (; i < stop; i++) if (text[i] !== '\n' && text[i] !== '\r') out[i] = ' ';
    } else if (char === ',') {
      pendingComma = i++;
    } else if (char === '}' || char === ']') {
      if (pendingComma !== -1) out[pendingComma] = ' ';
      pendingComma = -1;
      i++;
    } else {
      if (char !== undefined && !/\s/.test(char)) pendingComma = -1;
      i++;
    }
  }
  return out.join('');
}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return { line, column: position - before.lastIndexOf('\n') };
}

class JsonSyntaxError extends Error {
  constructor(
    readonly position: number,
    problem: string,
  ) {
    super(problem);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/**
 * Where `text` stops being JSON, and why. V8's messages do not always say where (Node 20's
 * "Unexpected token" has no position and quotes the whole text), so this walks the text itself.
 */
function locateJsonError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (problem: string): never => {
    throw new JsonSyntaxError(i, i >= text.length ? 'unexpected end of the file' : problem);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const char = text[i] as string;
      if (char === '"') {
        i++;
        return;
      }
      if (char < ' ') fail('a control character (a raw newline?) inside a string');
      i += char === '\\' ? 2 : 1;
    }
    fail('unterminated string');
  };
  const sticky = (pattern: RegExp): boolean => {
    pattern.lastIndex = i;
    if (!pattern.test(text)) return false;
    i = pattern.lastIndex;
    return true;
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          space();
          if (text[i] !== '"') fail('expected a property name in double quotes');
          string();
          space();
          if (text[i] !== ':') fail("expected ':' after the property name");
          i++;
        }
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          return;
        }
        fail(`expected ',' or '${close}'`);
      }
    }
    if (char === '"') {
      string();
      return;
    }
    if (sticky(NUMBER) || sticky(LITERAL)) return;
    fail(`unexpected ${JSON.stringify(char)}`);
  };
  try {
    value();
    space();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
  return undefined;
}

/** Invalid JSON: where (1-based line and column, when known) and what is wrong. */
export class JsoncError extends Error {
  constructor(
    readonly problem: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? problem : `line ${line}, column ${column}: ${problem}`);
  }
}

/**
 * Parse JSON with comments and trailing commas.
 * @throws JsoncError saying where the problem is (`line 3, column 7: expected ',' or '}'`).
 */
export function parseJsonc(text: string): unknown {
  const blanked = blankJsonComments(text.replace(/^\uFEFF/, ''));
  try {
    return JSON.parse(blanked);
  } catch (error) {
    const located = locateJsonError(blanked);
    if (!located) throw new JsoncError(String(error instanceof Error ? error.message : error).slice(0, 100));
    const { line, column } = lineAndColumn(blanked, located.position);
    throw new JsoncError(located.message, line, column);
  }
}
