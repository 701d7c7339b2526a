/**
 * git_blame of a file with more lines than a spread into Math.max takes (it overflowed the stack past
 * ~120k lines): it answers, and its first part names every line of the file.
 */
import { describe, expect, it } from 'vitest';
import { connect, gitRepo, hasGit, text, write } from './helpers.js';

describe('git_blame of a very long file', () => {
  it.skipIf(!hasGit)(
    'answers in parts, with the widths of the whole file',
    async () => {
      using fx = gitRepo();
      write(fx.repo, { 'long.txt': Array.from({ length: 200_000 }, (_, i) => `${i}\n`).join('') });
      fx.git('add', 'long.txt');
      fx.git('commit', '-q', '-m', 'long');
      await using pair = await connect({ repositories: [fx.path] });
      const res = await pair.client.callTool({ name: 'git_blame', arguments: { repo_path: fx.repo, file: 'long.txt' } });
      expect(res.isError, text(res).slice(0, 300)).toBeFalsy();
      const out = text(res);
      expect(out).toMatch(
        /\[Lines 1-\d+ of 200000 shown \(answers are capped at \d+ bytes\): call again with start_line \d+ for the rest\]$/,
      );
      // Line numbers are padded to the width of the last line of the file (6 digits), as git pads them.
      const first = out.split('\n')[0]!;
      expect(first).toMatch(/^[0-9a-f]+ \(Test User \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} {6}1\) 0$/);
    },
    30_000,
  );
});
