import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startScriptedModel } from '@mcpkit/agent/testing';
import { binOf, type StandaloneStop } from '../stop.js';

const run = promisify(execFile);

/**
 * The agent: `mcp-agent` with the memory server, on a SCRIPTED model — a local stand-in for an
 * OpenAI-compatible endpoint that replays fixed replies (no LLM runs here). What is real: the CLI,
 * the memory server it starts from a Claude-Desktop-style config, every MCP call, the namespacing
 * (`memory__create_entities`), the approvals (`--yes`), and the streamed answer on stdout.
 */
export const agent: StandaloneStop = {
  title: 'agent: mcp-agent uses the memory server (scripted model, no real LLM)',
  pkgs: ['@mcpkit/agent-cli', '@mcpkit/server-memory'],
  async run(t) {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-tour-agent-'));
    await using model = await startScriptedModel({
      turns: [
        {
          text: 'I will remember that. ',
          toolCalls: [
            {
              name: 'memory__create_entities',
              arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['Maintains the scheduler'] }] },
            },
          ],
        },
        { toolCalls: [{ name: 'memory__search_nodes', arguments: { query: 'ada' } }] },
        { text: ['Saved. ', 'Ada is a person who ', 'maintains the scheduler.'] },
      ],
    });
    try {
      const config = join(dir, 'servers.json');
      await writeFile(
        config,
        JSON.stringify({
          mcpServers: {
            memory: {
              command: process.execPath,
              args: [binOf('@mcpkit/server-memory'), '--memory-path', join(dir, 'memory.jsonl')],
              // 2026-07-28 when the server offers it (it does), as for the tour's own client; the CLI's default is legacy.
              protocol: 'auto',
            },
          },
        }),
      );
      t.note('The model here is scripted: a local OpenAI-compatible stand-in that replays three fixed replies.');
      t.note('Everything else is real: the CLI, the memory server it starts, and every MCP call.');
      t.note('The config entry says "protocol": "auto", so the agent speaks MCP 2026-07-28 to the memory server too.');
      const args = [
        '--config',
        config,
        '--base-url',
        model.baseUrl,
        '--model',
        'scripted',
        '--yes',
        '-p',
        'Remember that Ada maintains the scheduler.',
      ];
      t.note(`$ mcp-agent ${args.map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`);
      const { stdout, stderr } = await run(process.execPath, [binOf('@mcpkit/agent-cli'), ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', OPENAI_API_KEY: 'not-needed' },
        timeout: 30_000,
      });
      t.note('stderr (tool activity):');
      t.reply(stderr.trim());
      t.note('stdout (the answer):');
      t.reply(stdout.trim());
      const sent = model.requests.at(-1)?.body as { messages?: { role: string }[] } | undefined;
      t.note(`The model was called ${model.requests.length} times; the last request carried ${sent?.messages?.length ?? 0} messages.`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
