import { describe, expect, it } from 'vitest';
import { createRegistry } from '../src/index.js';
import { createStderrTail, thrownErrorLines } from '../src/mcp/stderrSummary.js';

describe('stderr summary', () => {
  it("finds a thrown error's message above its stack, not Node's version footer", () => {
    const lines = [
      'file:///srv/server.js:3',
      "    throw new ConfigError('MEMORY_PATH is not writable');",
      '    ^',
      'ConfigError: MEMORY_PATH is not writable',
      '    at file:///srv/server.js:3:11',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:195:25)',
      '{',
      "  code: 'EACCES'",
      '}',
      'Node.js v20.20.2',
    ];
    expect(thrownErrorLines(lines)).toEqual(['ConfigError: MEMORY_PATH is not writable']);
    const tail = createStderrTail();
    for (const line of lines) tail.push(line);
    expect(tail.summary()).toEqual({ text: 'ConfigError: MEMORY_PATH is not writable', isLastLine: false });
  });

  it('keeps a multi-line message, and the last line when there is no stack', () => {
    expect(thrownErrorLines(['Error: first line', 'second line', '    at x (y.js:1:1)'])).toEqual(['Error: first line', 'second line']);
    const tail = createStderrTail();
    tail.push('starting');
    tail.push('config error: no port');
    expect(tail.summary()).toEqual({ text: 'config error: no port', isLastLine: true });
    tail.push('Node.js v22.1.0');
    expect(tail.summary()).toEqual({ text: 'config error: no port', isLastLine: false });
    expect(createStderrTail().summary()).toBeUndefined();
  });

  it('a stdio server that throws at start is reported with its error, not "Node.js v…"', async () => {
    const notices: string[] = [];
    await using registry = await createRegistry(
      [
        {
          kind: 'stdio',
          name: 'thrower',
          command: process.execPath,
          args: ['-e', "throw new Error('cannot open /nonexistent/db.sqlite')"],
          env: {},
          approval: { tools: {} },
        },
      ],
      { host: { onNotice: (text) => notices.push(text) } },
    );
    const error = registry.servers[0]?.error ?? '';
    expect(error).toBe(`thrower: could not start "${process.execPath}": exited during startup: Error: cannot open /nonexistent/db.sqlite`);
    expect(error).not.toContain('Node.js v');
    expect(notices).toEqual([error]);
  });
});
