/**
 * JSON with comments, as VS Code's `mcp.json` allows (`//` and `/* *\/` comments, trailing commas),
 * read with `jsonc-parser`. The first problem is reported with its 1-based line and column and a
 * short description, never with the file's text (it may hold secrets).
 */
import { type ParseError, parse, printParseErrorCode, visit } from 'jsonc-parser';

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

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** What a parse error means, in words; `container` is the innermost open `{` or `[`. */
function describe(error: ParseError, text: string, container: '{' | '[' | undefined): string {
  if (error.offset >= text.length) return 'unexpected end of the file';
  const close = container === '[' ? ']' : '}';
  // `ParseErrorCode` is a const enum (not usable under `verbatimModuleSyntax`): switch on its name.
  switch (printParseErrorCode(error.error)) {
    case 'CommaExpected':
      return `expected ',' or '${close}'`;
    case 'CloseBraceExpected':
      return "expected ',' or '}'";
    case 'CloseBracketExpected':
      return "expected ',' or ']'";
    case 'ColonExpected':
      return "expected ':' after the property name";
    case 'PropertyNameExpected':
      return 'expected a property name in double quotes';
    case 'EndOfFileExpected':
      return 'unexpected text after the end of the JSON value';
    case 'UnexpectedEndOfString':
      return 'unterminated string (a raw newline inside a string?)';
    case 'InvalidCharacter':
      return 'a control character inside a string';
    case 'InvalidEscapeCharacter':
      return 'an invalid escape in a string';
    case 'InvalidUnicode':
      return 'an invalid \\u escape in a string';
    case 'InvalidNumberFormat':
      return 'an invalid number';
    case 'UnexpectedEndOfComment':
      return 'unterminated /* comment';
    default:
      // ValueExpected, InvalidSymbol and anything newer: name what stands there.
      return `unexpected ${JSON.stringify(text.slice(error.offset, error.offset + Math.max(1, Math.min(error.length, 20))))}`;
  }
}

const OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false } as const;

/** The first error, with the innermost `{` or `[` open where it happened. */
function firstError(text: string): { error: ParseError; container: '{' | '[' | undefined } | undefined {
  const open: ('{' | '[')[] = [];
  let first: { error: ParseError; container: '{' | '[' | undefined } | undefined;
  visit(
    text,
    {
      onObjectBegin: () => void open.push('{'),
      onObjectEnd: () => void open.pop(),
      onArrayBegin: () => void open.push('['),
      onArrayEnd: () => void open.pop(),
      onError: (error, offset, length) => {
        first ??= { error: { error, offset, length }, container: open.at(-1) };
      },
    },
    OPTIONS,
  );
  return first;
}

/**
 * Parse JSON with comments and trailing commas (a leading byte-order mark is dropped).
 * @throws JsoncError saying where the first problem is (`line 3, column 7: expected ',' or '}'`).
 */
export function parseJsonc(input: string): unknown {
  const text = input.replace(/^\uFEFF/, '');
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, OPTIONS);
  if (errors.length === 0) return value;
  const first = firstError(text) ?? { error: errors[0] as ParseError, container: undefined };
  const { line, column } = lineAndColumn(text, first.error.offset);
  throw new JsoncError(describe(first.error, text, first.container), line, column);
}
