/**
 * What a start of the built bin loads before its first answer (issue 18's cold start): the chosen profile only
 * (its own chunks of the bin), and neither `node:crypto` (the request-state key and codec, the tasks store: made on
 * first use) nor the HTTP client of @mcpkit/net (`node:http`, `node:dns`: loaded by the first download). Node's
 * `process.moduleLoadList` names the built-in modules a process has loaded; a probe preloaded with `--import`
 * reports it when the `tools/list` answer is written.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const PROBE = `
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('"id":2')) {
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
    process.stderr.write('LOADED ' + JSON.stringify(builtins) + '\\n');
  }
  return write(chunk, ...rest);
};`;

const MESSAGES = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
];

/** The built-in modules the bin has loaded when it answers its first `tools/list`, and the tools it listed. */
async function loadedAtFirstList(args: string[]): Promise<{ builtins: string[]; tools: string[] }> {
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`, bin, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    let stdout = '';
    let stderr = '';
    const done = new Promise<{ builtins: string[]; tools: string[] }>((resolve, reject) => {
      const check = () => {
        const loaded = /LOADED (.*)\n/.exec(stderr);
        const answer = stdout.split('\n').find((line) => line.includes('"id":2'));
        if (loaded?.[1] && answer) {
          const tools = (JSON.parse(answer) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
          resolve({ builtins: JSON.parse(loaded[1]) as string[], tools });
        }
      };
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        check();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        check();
      });
      child.once('exit', (code) => reject(new Error(`the bin exited (${code}) before answering tools/list: ${stderr}`)));
    });
    child.stdin.write(MESSAGES.map((m) => `${JSON.stringify(m)}\n`).join(''));
    return await done;
  } finally {
    child.kill();
  }
}

describe('cold start of mcp-server-everything (built bin over stdio)', () => {
  for (const profile of ['legacy', 'current', 'conformance'] as const) {
    it(`--profile ${profile}: answers tools/list without having loaded node:crypto or the HTTP client`, async () => {
      const { builtins, tools } = await loadedAtFirstList(['--profile', profile]);
      expect(tools.length).toBeGreaterThan(0);
      expect(builtins).not.toContain('crypto');
      expect(builtins).not.toContain('http');
      expect(builtins).not.toContain('dns/promises');
    });
  }
});
