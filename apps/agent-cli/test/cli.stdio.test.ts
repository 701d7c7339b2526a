import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ScriptedTurn, startScriptedModel } from '@mcpkit/agent/testing';
import { describe, expect, it } from 'vitest';
import { AGENT_BIN, memoryServer, runAgent, serverBin, tempDir } from './helpers.js';

const ENTITY = { entities: [{ name: 'Ada', entityType: 'person', observations: ['Maintains the scheduler'] }] };

function modelArgs(baseUrl: string, config?: string): string[] {
  return ['--base-url', baseUrl, '--model', 'scripted', ...(config ? ['--config', config] : [])];
}

interface TranscriptJson {
  messages: Array<{ role: string; content: string; toolCalls?: unknown[]; toolCallId?: string; isError?: boolean }>;
  toolCalls: Array<{ name: string; server?: string; status: string; result: string }>;
  text: string;
}

describe('mcp-agent (built bin)', () => {
  it('is built', () => {
    expect(existsSync(AGENT_BIN)).toBe(true);
  });

  it('--help exits 0; a bad flag or config is one stderr line and exit 2', async () => {
    const help = await runAgent(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('mcp-agent');
    const bad = await runAgent(['--max-steps', 'x', '-m', 'm', '-p', 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--max-steps');
    await using tmp = await tempDir();
    const config = await runAgent(['-m', 'm', '-c', await tmp.config({ broken: { args: ['x'] } }), '-p', 'hi']);
    expect(config.code).toBe(2);
    expect(config.stderr.trim().split('\n')).toHaveLength(1);
    expect(config.stderr).toContain('broken');
  });

  it("no API key and OpenAI's URL: says so before starting servers or sending anything (exit 2)", async () => {
    await using tmp = await tempDir();
    const marker = join(tmp.dir, 'started');
    const server = { command: process.execPath, args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] };
    const run = await runAgent(['-m', 'gpt-4o-mini', '-c', await tmp.config({ s: server }), '-p', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      "mcp-agent: no API key: OPENAI_API_KEY is not set and the model is OpenAI's (https://api.openai.com/v1); " +
        'set OPENAI_API_KEY, or point --base-url at a local server such as http://localhost:11434/v1',
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('native and text modes give the same transcript, with calls split across stream chunks', async () => {
    const runs: TranscriptJson[] = [];
    const native: ScriptedTurn[] = [
      { text: 'Saving. ', toolCalls: [{ id: 'call_1', name: 'memory__create_entities', arguments: ENTITY, chunks: 5 }] },
      { text: ['Ada ', 'is saved.'] },
    ];
    const text: ScriptedTurn[] = [
      { text: ['Saving. <tool_', 'call>{"name": "memory__create_', `entities", "arguments": ${JSON.stringify(ENTITY)}}</tool`, '_call>'] },
      { text: ['Ada ', 'is saved.'] },
    ];
    for (const [mode, turns] of [
      ['native', native],
      ['text', text],
    ] as const) {
      await using model = await startScriptedModel({ turns });
      await using tmp = await tempDir();
      const memoryFile = join(tmp.dir, 'memory.jsonl');
      const config = await tmp.config({ memory: memoryServer(memoryFile) });
      const run = await runAgent([...modelArgs(model.baseUrl, config), '--tool-mode', mode, '--yes', '--json', '-p', 'Remember Ada.']);
      expect(run.code, run.stderr).toBe(0);
      const transcript = JSON.parse(run.stdout) as TranscriptJson;
      expect(transcript.text).toBe('Ada is saved.');
      expect(transcript.toolCalls.map((c) => [c.name, c.status])).toEqual([['memory__create_entities', 'ok']]);
      expect(await readFile(memoryFile, 'utf8')).toContain('Maintains the scheduler');
      runs.push(transcript);
    }
    const strip = (t: TranscriptJson) => t.messages.map((m) => ({ ...m, content: m.content.trim() }));
    expect(strip(runs[1] as TranscriptJson)).toEqual(strip(runs[0] as TranscriptJson));
  });

  it('streams the answer to stdout, tool activity to stderr, and strips terminal control sequences', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'memory__read_graph', arguments: {} }] },
        { text: ['Hello ', '\u001b[31mred\u001b[0m', ' \u202Eworld'] },
      ],
    });
    await using tmp = await tempDir();
    const run = await runAgent([
      ...modelArgs(model.baseUrl, await tmp.config({ memory: memoryServer(join(tmp.dir, 'm.jsonl')) })),
      '-p',
      'hi',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello red world\n');
    expect(run.stderr).toMatch(/memory › read_graph/);
  });

  it('routes two servers with the same tool names to their own server', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'work__create_entities', arguments: ENTITY }] },
        {
          toolCalls: [
            { name: 'home__read_graph', arguments: {} },
            { name: 'work__read_graph', arguments: {} },
          ],
        },
        { text: 'done' },
      ],
    });
    await using tmp = await tempDir();
    const work = join(tmp.dir, 'work.jsonl');
    const home = join(tmp.dir, 'home.jsonl');
    const config = await tmp.config({ work: memoryServer(work), home: memoryServer(home) });
    // Two memory servers' tools (about 2,400 tokens) are over the default deferral line (5% of the window):
    // this test is about routing, so every tool is offered.
    const run = await runAgent([...modelArgs(model.baseUrl, config), '--yes', '--json', '--defer-threshold', 'off', '-p', 'go']);
    expect(run.code, run.stderr).toBe(0);
    const t = JSON.parse(run.stdout) as TranscriptJson;
    expect(t.toolCalls.map((c) => c.server)).toEqual(['work', 'home', 'work']);
    expect(t.toolCalls[1]?.result).not.toContain('Ada');
    expect(t.toolCalls[2]?.result).toContain('Ada');
    const tools = ((model.requests[0]?.body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name);
    expect(tools).toContain('work__create_entities');
    expect(tools).toContain('home__create_entities');
    expect(existsSync(home) ? await readFile(home, 'utf8') : '').not.toContain('Ada');
  });

  it('--defer-threshold: the first request offers tool_search only; the found tool is loaded and called', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'tool_search', arguments: { query: 'create entities' } }] },
        { toolCalls: [{ name: 'memory__create_entities', arguments: ENTITY }] },
        { text: 'done' },
      ],
    });
    await using tmp = await tempDir();
    const file = join(tmp.dir, 'm.jsonl');
    const config = await tmp.config({ memory: memoryServer(file) });
    const run = await runAgent([...modelArgs(model.baseUrl, config), '--defer-threshold', '100', '--yes', '--json', '-p', 'go']);
    expect(run.code, run.stderr).toBe(0);
    const names = (i: number) => ((model.requests[i]?.body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name);
    expect(names(0)).toEqual(['tool_search']);
    expect(names(1)).toContain('memory__create_entities');
    const t = JSON.parse(run.stdout) as TranscriptJson;
    expect(t.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['tool_search', 'ok'],
      ['memory__create_entities', 'ok'],
    ]);
    expect(await readFile(file, 'utf8')).toContain('Ada');
  });

  it('chats line by line without -p, keeping the conversation, until /exit', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'Hello Ada.' }, { text: 'You are Ada.' }] });
    const run = await runAgent(modelArgs(model.baseUrl), { input: 'I am Ada\n/tools\nWho am I?\n/exit\nnever sent\n' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Hello Ada.\nYou are Ada.\n');
    expect(model.requests).toHaveLength(2);
    const second = model.requests[1]?.body.messages as { role: string; content: string }[];
    expect(second.map((m) => [m.role, m.content])).toEqual([
      ['user', 'I am Ada'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Who am I?'],
    ]);
  });

  it('after --max-steps rounds, one last call without tools gives the answer', async () => {
    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }, { text: 'Final answer.' }],
    });
    await using tmp = await tempDir();
    const config = await tmp.config({ memory: memoryServer(join(tmp.dir, 'm.jsonl')) });
    const run = await runAgent([...modelArgs(model.baseUrl, config), '--max-steps', '1', '-p', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Final answer.\n');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.body.tools).toBeDefined();
    expect(model.requests[1]?.body.tools).toBeUndefined();
  });

  it('without a TTY, a writing tool is denied (fail closed) and the model is told', async () => {
    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: 'memory__create_entities', arguments: ENTITY }] }, { text: 'I could not save it.' }],
    });
    await using tmp = await tempDir();
    const file = join(tmp.dir, 'm.jsonl');
    const run = await runAgent([...modelArgs(model.baseUrl, await tmp.config({ memory: memoryServer(file) })), '--json', '-p', 'save Ada']);
    expect(run.code, run.stderr).toBe(0);
    const t = JSON.parse(run.stdout) as TranscriptJson;
    expect(t.toolCalls.map((c) => c.status)).toEqual(['denied']);
    expect(t.toolCalls[0]?.result).toContain('no terminal to ask');
    const toolMessage = ((model.requests[1]?.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain('not run');
    expect(existsSync(file) ? await readFile(file, 'utf8') : '').not.toContain('Ada');
  });

  it('without a TTY, a read-only tool runs by default; --no-auto-approve-read-only or the config\'s "autoApproveReadOnly": false asks (so denies)', async () => {
    await using tmp = await tempDir();
    const file = join(tmp.dir, 'm.jsonl');
    const statuses = async (server: Record<string, unknown>, flags: string[]) => {
      await using model = await startScriptedModel({
        turns: [{ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }, { text: 'done' }],
      });
      const run = await runAgent([...modelArgs(model.baseUrl, await tmp.config({ memory: server })), ...flags, '--json', '-p', 'read']);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as TranscriptJson).toolCalls.map((c) => c.status);
    };
    expect(await statuses(memoryServer(file), [])).toEqual(['ok']);
    expect(await statuses(memoryServer(file), ['--no-auto-approve-read-only'])).toEqual(['denied']);
    expect(await statuses({ ...memoryServer(file), autoApproveReadOnly: false }, [])).toEqual(['denied']);
  });

  it('a server that fails to start is reported and the others go on', async () => {
    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }, { text: 'ok' }],
    });
    await using tmp = await tempDir();
    const config = await tmp.config({
      ghost: { command: join(tmp.dir, 'no-such-program') },
      crashing: { command: process.execPath, args: ['-e', 'console.error("bad config: missing token"); process.exit(3)'] },
      memory: memoryServer(join(tmp.dir, 'm.jsonl')),
    });
    const run = await runAgent([...modelArgs(model.baseUrl, config), '-p', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('ok\n');
    expect(run.stderr).toMatch(/ghost/);
    expect(run.stderr).toMatch(/crashing.*(bad config: missing token|exit)/);
    const tools = ((model.requests[0]?.body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name);
    expect(tools.every((n) => n.startsWith('memory__'))).toBe(true);
  });

  it('serves sampling through the same model, after approval (--yes)', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: 'everything__sampleLLM', arguments: { prompt: 'Say hi', maxTokens: 20 } }] },
        (request) => ({ text: request.body.tools ? 'unexpected tools' : 'Hi from the sampled model' }),
        { text: 'The server got its sample.' },
      ],
    });
    await using tmp = await tempDir();
    const config = await tmp.config({
      everything: { command: process.execPath, args: [serverBin('@mcpkit/server-everything'), '--profile', 'legacy'] },
    });
    const run = await runAgent([...modelArgs(model.baseUrl, config), '--yes', '--json', '-p', 'sample']);
    expect(run.code, run.stderr).toBe(0);
    const t = JSON.parse(run.stdout) as TranscriptJson;
    expect(t.toolCalls[0]?.result).toBe('LLM sampling result: Hi from the sampled model');
    expect(JSON.stringify(model.requests[1]?.body.messages)).toContain('Say hi');
    expect(model.requests[1]?.body.tools).toBeUndefined();
  });

  it('elicitation: a form answered on stdin (--ask-stdin) goes back to the server; cancel and decline too', async () => {
    const turns = (): ScriptedTurn[] => [{ toolCalls: [{ name: 'everything__startElicitation', arguments: {} }] }, { text: 'thanks' }];
    const cfgServers = { everything: { command: process.execPath, args: [serverBin('@mcpkit/server-everything'), '--profile', 'legacy'] } };
    {
      await using model = await startScriptedModel({ turns: turns() });
      await using tmp = await tempDir();
      // name, check, color (default), email, homepage, birthdate, integer, number, petType (by number), confirm
      const answers = ['Ada Lovelace', 'y', '', 'ada@example.com', '', '', '7', '', '3', 'y'].join('\n');
      const config = await tmp.config(cfgServers);
      const run = await runAgent([...modelArgs(model.baseUrl, config), '--ask-stdin', '--json', '-p', 'ask me'], { input: `${answers}\n` });
      expect(run.code, run.stderr).toBe(0);
      const t = JSON.parse(run.stdout) as TranscriptJson;
      expect(t.toolCalls[0]?.status).toBe('ok');
      expect(t.toolCalls[0]?.result).toContain('Ada Lovelace');
      expect(t.toolCalls[0]?.result).toContain('birds');
      expect(run.stderr).toContain('Please provide inputs');
    }
    {
      await using model = await startScriptedModel({ turns: turns() });
      await using tmp = await tempDir();
      const config = await tmp.config(cfgServers);
      const run = await runAgent([...modelArgs(model.baseUrl, config), '--ask-stdin', '--json', '-p', 'ask me'], { input: ':decline\n' });
      expect(run.code, run.stderr).toBe(0);
      const t = JSON.parse(run.stdout) as TranscriptJson;
      expect(t.toolCalls[0]?.result).toMatch(/decline/i);
    }
  });

  it('Ctrl-C cancels the running tool call; the run ends with exit 130 and the servers are shut down', async () => {
    const TOOL_S = 20; // how long the tool would run (s)
    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: 'everything__longRunningOperation', arguments: { duration: TOOL_S, steps: 40 } }] }, { text: 'never' }],
    });
    await using tmp = await tempDir();
    const config = await tmp.config({
      everything: { command: process.execPath, args: [serverBin('@mcpkit/server-everything'), '--profile', 'legacy'] },
    });
    let interruptedAt = Number.NaN;
    const run = await runAgent([...modelArgs(model.baseUrl, config), '-p', 'wait'], {
      onSpawn(child, out) {
        const timer = setInterval(() => {
          if (/progress|longRunningOperation/.test(out.stderr())) {
            clearInterval(timer);
            interruptedAt = Date.now();
            child.kill('SIGINT');
          }
        }, 50);
        child.on('close', () => clearInterval(timer));
      },
    });
    expect(run.code, run.stderr).toBe(130);
    // The contract is the tool's own length: from Ctrl-C to exit within a factor of it (half), not sat out.
    expect(Date.now() - interruptedAt).toBeLessThan((TOOL_S * 1000) / 2);
    expect(run.stderr).toMatch(/cancel/i);
    // Only the first model call was made: a cancelled run asks the model nothing more.
    expect(model.requests).toHaveLength(1);
  });

  it('reaches a server over Streamable HTTP', async () => {
    await using tmp = await tempDir();
    const server = spawn(
      process.execPath,
      [serverBin('@mcpkit/server-memory'), '--memory-path', join(tmp.dir, 'h.jsonl'), '--transport', 'http', '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let err = '';
        server.stderr.on('data', (c: Buffer) => {
          err += c.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m?.[1]) resolveUrl(m[1]);
        });
        server.on('exit', () => reject(new Error(`memory server exited: ${err}`)));
      });
      await using model = await startScriptedModel({
        turns: [{ toolCalls: [{ name: 'remote__create_entities', arguments: ENTITY }] }, { text: 'saved remotely' }],
      });
      const run = await runAgent([...modelArgs(model.baseUrl, await tmp.config({ remote: { url } })), '--yes', '-p', 'save']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('saved remotely\n');
    } finally {
      server.kill();
      // Until it has exited the server may still be writing in tmp.dir (closing the store folds its journal in).
      await exited;
    }
    expect(await readFile(join(tmp.dir, 'h.jsonl'), 'utf8')).toContain('Ada');
  });

  it('fetch reads a loopback page (private network allowed in the config)', async () => {
    const page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Notes</title></head><body><article><h1>Field notes</h1><p>The heron came back on Tuesday.</p></article></body></html>',
      );
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/notes`;
    try {
      await using model = await startScriptedModel({
        turns: [{ toolCalls: [{ name: 'fetch__fetch', arguments: { url } }] }, { text: 'The heron is back.' }],
      });
      await using tmp = await tempDir();
      const config = await tmp.config({
        fetch: { command: process.execPath, args: [serverBin('@mcpkit/server-fetch'), '--allow-private-network'] },
      });
      const run = await runAgent([...modelArgs(model.baseUrl, config), '--yes', '--json', '-p', 'read it']);
      expect(run.code, run.stderr).toBe(0);
      const t = JSON.parse(run.stdout) as TranscriptJson;
      expect(t.toolCalls[0]?.status).toBe('ok');
      expect(t.toolCalls[0]?.result).toContain('The heron came back on Tuesday.');
    } finally {
      page.close();
    }
  });

  it('a provider failure is one clear stderr line: exit 2 for a refused key, 1 for a failed run', async () => {
    {
      await using model = await startScriptedModel({ turns: [{ status: 401, message: 'Incorrect API key provided' }] });
      const run = await runAgent([...modelArgs(model.baseUrl), '-p', 'hi'], { env: { OPENAI_API_KEY: 'sk-wrong' } });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/API key was refused/);
      expect(run.stderr).not.toContain('sk-wrong');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stdout).toBe('');
    }
    {
      await using model = await startScriptedModel({ turns: [{ status: 400, message: 'context length exceeded' }] });
      const run = await runAgent([...modelArgs(model.baseUrl), '-p', 'hi']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/context length exceeded/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
