/**
 * git_show's text, as the reference builds it with GitPython: the commit header in Python reprs, then
 * for each file of `git diff-tree -M -p <parent> <commit>` a `--- <a_path>` / `+++ <b_path>` pair
 * (None for a missing side) and GitPython's `Diff.diff` (what follows git's file header: the hunks, or
 * `Binary files … differ`, or nothing). GitPython (3.2) undoes git's C quoting of names, so the paths
 * appear as they are.
 */
import { byteString, type FilePatch } from './patch.js';

/** The `--- a\n+++ b\n` + diff text of one file, as a byte string. */
export function gitPythonFile(p: FilePatch, oldExists: boolean, newExists: boolean): string {
  const oldPath = p.old_path ?? p.path;
  let a = oldPath;
  let b = p.path;
  // With ---/+++ lines GitPython takes the names from them (/dev/null → None); without (binary, mode
  // only, empty file, pure rename) it falls back to the rename lines or the `diff --git` line: both names.
  if (p.hasFileLines) {
    if (!oldExists) a = 'None';
    if (!newExists) b = 'None';
  }
  return `\n--- ${byteString(a)}\n+++ ${byteString(b)}\n${p.bytes.slice(p.hunksAt)}`;
}
