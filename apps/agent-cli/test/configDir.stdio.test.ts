/**
 * `--config-dir` for a chat and a `-p` run, through the built bin: a login kept in that directory (by `mcp-agent
 * login --config-dir`, run through `main`, the code the bin runs, with the browser step walked over HTTP) is what
 * the run uses to reach an OAuth-protected memory server; without the flag the same run finds no login. HOME and
 * XDG_CONFIG_HOME point at an empty directory, so the default location holds nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startScriptedModel } from '@mcpkit/agent/testing';
import { type ProtectedMemory, startProtectedMemory, testBrowser } from '@mcpkit/test-utils/protected-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { runAgent, serverBin } from './helpers.js';

let setup: ProtectedMemory;
let configFile: string;
let configDir: string;
let home: string;

const sink = () => {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
};

beforeAll(async () => {
  setup = await startProtectedMemory(serverBin('@mcpkit/server-memory'));
  const dir = setup.tempDir();
  configFile = join(dir, 'servers.json');
  configDir = join(dir, 'elsewhere');
  home = await mkdtemp(join(tmpdir(), 'mcp-agent-home-'));
  await writeFile(configFile, JSON.stringify({ mcpServers: { memory: { url: setup.endpoint, type: 'streamable-http' } } }));
  const stderr = sink();
  const code = await main({
    argv: ['login', 'memory', '-c', configFile, '--config-dir', configDir],
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
    stdin: process.stdin,
    stdout: sink().stream,
    stderr: stderr.stream,
    openUrl: testBrowser(setup.as).openUrl,
  });
  expect(code, stderr.text()).toBe(0);
}, 60_000);

afterAll(async () => {
  await setup?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const env = () => ({ HOME: home, XDG_CONFIG_HOME: home });
const model = () => startScriptedModel({ turns: [{ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }, { text: 'Read it.' }] });
const args = (baseUrl: string) => ['--base-url', baseUrl, '--model', 'scripted', '-c', configFile, '--yes'];

describe('mcp-agent --config-dir (built bin)', () => {
  it('-p uses the login kept in --config-dir', async () => {
    await using scripted = await model();
    const run = await runAgent([...args(scripted.baseUrl), '--config-dir', configDir, '--json', '-p', 'read the graph'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const transcript = JSON.parse(run.stdout) as { toolCalls: { name: string; status: string }[]; text: string };
    expect(transcript.toolCalls.map((c) => [c.name, c.status])).toEqual([['memory__read_graph', 'ok']]);
    expect(transcript.text).toBe('Read it.');
    expect(run.stderr).not.toContain('needs a login');
  });

  it('a chat uses it too', async () => {
    await using scripted = await model();
    const run = await runAgent([...args(scripted.baseUrl), '--config-dir', configDir], { env: env(), input: 'read the graph\n/exit\n' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Read it.\n');
    expect(run.stderr).not.toContain('needs a login');
    const tools = (scripted.requests[0]?.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((t) => t.function.name)).toContain('memory__read_graph');
  });

  it('without it, the same run looks in the default place and finds no login', async () => {
    await using scripted = await model();
    const run = await runAgent([...args(scripted.baseUrl), '--json', '-p', 'read the graph'], { env: env() });
    expect(run.stderr).toContain('server "memory" needs a login: run mcp-agent login memory');
  });

  it('an empty --config-dir is a usage error (exit 2, one line)', async () => {
    const run = await runAgent(['--model', 'm', '--config-dir', '', '-p', 'hi'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mcp-agent: --config-dir: expected a directory, got ""');
  });
});
