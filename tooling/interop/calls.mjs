// tools/call checks that interop.mjs runs through the official Inspector CLI against each server's stdio bin.
// One entry per server package; a server without an entry still gets the generic tools/list checks.
// `args` are passed as `--tool-arg key=value`; `expect(result, exitCode)` returns undefined when the answer is
// right, or a sentence saying what is wrong.

const text = (result) => result?.content?.find((c) => c.type === 'text')?.text ?? '';

export const calls = {
  // Against the `conformance` profile (interop.mjs SERVER_SETTINGS), the suite's fixture surface.
  '@mcpkit/server-everything': [
    {
      label: 'tools/call test_simple_text (conformance profile)',
      tool: 'test_simple_text',
      args: {},
      expect(result, exitCode) {
        if (exitCode !== 0) return `exit code ${exitCode}, expected 0`;
        if (text(result) !== 'This is a simple text response for testing.') return `unexpected text: ${JSON.stringify(text(result))}`;
        return undefined;
      },
    },
    {
      label: 'tools/call test_error_handling: an isError result with the suite message',
      tool: 'test_error_handling',
      args: {},
      expect(result, exitCode) {
        if (exitCode === 0) return 'exit code 0, expected the Inspector to report a tool error';
        if (result?.isError !== true) return `expected isError, got ${JSON.stringify(result)}`;
        if (text(result) !== 'This tool intentionally returns an error for testing') return `unexpected text: ${text(result)}`;
        return undefined;
      },
    },
    {
      label: 'tools/call json_schema_2020_12_tool with a name',
      tool: 'json_schema_2020_12_tool',
      args: { name: 'Ada' },
      expect(result, exitCode) {
        if (exitCode !== 0) return `exit code ${exitCode}, expected 0: ${text(result)}`;
        if (text(result) !== 'JSON Schema 2020-12 tool called with: {"name":"Ada"}') return `unexpected text: ${text(result)}`;
        return undefined;
      },
    },
  ],
  // Against a one-commit repository made by interop.mjs (SERVER_SETTINGS setup); `vars.repo` is its path.
  '@mcpkit/server-git': [
    {
      label: 'tools/call git_status on the allowed repository: the reference text',
      tool: 'git_status',
      args: ({ repo }) => ({ repo_path: repo }),
      expect(result, exitCode) {
        if (exitCode !== 0) return `exit code ${exitCode}, expected 0: ${text(result)}`;
        const want = 'Repository status:\nOn branch main\nnothing to commit, working tree clean';
        if (text(result) !== want) return `unexpected text: ${JSON.stringify(text(result))}`;
        return undefined;
      },
    },
    {
      label: 'tools/call git_status outside the allowed folder: an isError refusal',
      tool: 'git_status',
      args: () => ({ repo_path: '/' }),
      expect(result, exitCode) {
        if (exitCode === 0) return 'exit code 0, expected the Inspector to report a tool error';
        if (result?.isError !== true || !/is outside the allowed root/.test(text(result))) return `unexpected: ${JSON.stringify(result)}`;
        return undefined;
      },
    },
    {
      label: "tools/call git_diff with target '--output=…': the reference's leading-dash refusal",
      tool: 'git_diff',
      args: ({ repo }) => ({ repo_path: repo, target: '--output=evil.txt' }),
      expect(result, exitCode) {
        if (exitCode === 0) return 'exit code 0, expected the Inspector to report a tool error';
        const want = "Ref 'Invalid target: '--output=evil.txt' - cannot start with '-'' did not resolve to an object";
        if (text(result) !== want) return `unexpected text: ${JSON.stringify(text(result))}`;
        return undefined;
      },
    },
  ],
  '@mcpkit/server-sequential-thinking': [
    {
      label: 'tools/call sequentialthinking: a first thought',
      tool: 'sequentialthinking',
      args: { thought: 'Break the problem down', nextThoughtNeeded: 'true', thoughtNumber: '1', totalThoughts: '3' },
      expect(result, exitCode) {
        const want = { thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: 1 };
        if (exitCode !== 0) return `exit code ${exitCode}, expected 0`;
        if (result?.isError) return `isError: ${text(result)}`;
        if (JSON.stringify(result?.structuredContent) !== JSON.stringify(want)) {
          return `structuredContent ${JSON.stringify(result?.structuredContent)}, expected ${JSON.stringify(want)}`;
        }
        if (text(result) !== JSON.stringify(want, null, 2)) return `text ${JSON.stringify(text(result))} is not the reference JSON`;
        return undefined;
      },
    },
    {
      label: 'tools/call sequentialthinking: thoughtNumber 0 is an isError result naming the field',
      tool: 'sequentialthinking',
      args: { thought: 'x', nextThoughtNeeded: 'true', thoughtNumber: '0', totalThoughts: '3' },
      expect(result, exitCode) {
        if (exitCode === 0) return 'exit code 0, expected the Inspector to report a tool error';
        if (result?.isError !== true) return `expected isError, got ${JSON.stringify(result)}`;
        if (!/thoughtNumber: Too small: expected number to be >=1/.test(text(result))) return `unexpected text: ${text(result)}`;
        return undefined;
      },
    },
  ],
};
