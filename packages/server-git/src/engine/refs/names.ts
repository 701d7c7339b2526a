/** Ref names: git's `check-ref-format` rules, and the reference server's leading-dash guards. */
import { GitError } from '../errors.js';

/**
 * Why `name` is not a valid ref name (the rules of `git check-ref-format`, one-level names allowed),
 * or null when it is valid.
 */
export function refNameProblem(name: string): string | null {
  if (name === '') return 'it is empty';
  if (name === '@') return "it is '@'";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what git refuses.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'it contains a space, a control character or one of ~ ^ : ? * [ \\';
  if (name.includes('..')) return "it contains '..'";
  if (name.includes('@{')) return "it contains '@{'";
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return "it starts or ends with '/' or contains '//'";
  if (name.endsWith('.')) return "it ends with '.'";
  if (Buffer.byteLength(name) > 1024) return `it is ${Buffer.byteLength(name)} bytes long (at most 1024)`;
  for (const part of name.split('/')) {
    if (Buffer.byteLength(part) > 240) return `a component is ${Buffer.byteLength(part)} bytes long (at most 240: each is a file name)`;
    if (part.startsWith('.')) return "a component starts with '.'";
    if (part.endsWith('.lock')) return "a component ends with '.lock'";
  }
  return null;
}

/** `git check-ref-format --branch`: a ref name that may also be a branch. Throws a GitError saying why not. */
export function assertBranchName(name: string): void {
  const problem = name.startsWith('-') ? "it starts with '-'" : name === 'HEAD' ? "'HEAD' is reserved" : refNameProblem(name);
  if (problem !== null)
    throw new GitError('INVALID_ARGUMENT', `'${name}' is not a valid branch name: ${problem} (see git check-ref-format)`);
}

/** `git check-ref-format` for `refs/tags/<name>`. Throws a GitError saying why not. */
export function assertTagName(name: string): void {
  const problem = name.startsWith('-') ? "it starts with '-'" : refNameProblem(name);
  if (problem !== null) throw new GitError('INVALID_ARGUMENT', `'${name}' is not a valid tag name: ${problem} (see git check-ref-format)`);
}

/**
 * The reference's guard: values starting with '-' raise GitPython's `BadName`, whose text wraps the
 * message once more: `Ref 'Invalid branch name: '-f' - cannot start with '-'' did not resolve to an object`.
 */
export function guardDash(label: string, value: string | null | undefined): void {
  if (value?.startsWith('-')) {
    throw new GitError('INVALID_ARGUMENT', `Ref 'Invalid ${label}: '${value}' - cannot start with '-'' did not resolve to an object`);
  }
}

/** GitPython's BadName text for a revision that does not resolve. */
export function badName(value: string): GitError {
  return new GitError('NOT_FOUND', `Ref '${value}' did not resolve to an object`);
}
