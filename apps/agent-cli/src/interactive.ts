/**
 * The chat: read a line, run it, print the reply, until `/exit` or end of input. Commands:
 * `/tools` (what the servers offer), `/servers` (their state), `/clear` (forget the conversation),
 * `/help`, `/exit`.
 */
import { type Agent, collectRun, type McpRegistry } from '@mcpkit/agent';
import { createEventPrinter, type RunIo } from './output.js';
import type { Prompter } from './terminal/prompter.js';
import { sanitizeForTerminal } from './terminal/sanitize.js';

export interface ChatIo extends RunIo {
  registry: McpRegistry;
}

const CHAT_HELP = 'Commands: /tools, /servers, /clear, /help, /exit. Ctrl-C cancels a running step; twice quits.';

export async function runChat(agent: Agent, prompter: Prompter, io: ChatIo): Promise<number> {
  const { registry, options } = io;
  const color = io.stderr.isTTY === true && !io.env.NO_COLOR;
  const connected = registry.servers.filter((s) => s.status === 'connected');
  io.stderr.write(`mcp-agent: ${connected.length} server(s), ${registry.listTools().length} tool(s). ${CHAT_HELP}\n`);
  for (;;) {
    const line = await prompter.question('you> ');
    if (line === null) return 0;
    const input = line.trim();
    if (input === '') continue;
    if (input === '/exit' || input === '/quit') return 0;
    if (input === '/help') {
      io.stderr.write(`${CHAT_HELP}\n`);
      continue;
    }
    if (input === '/clear') {
      agent.session.clear();
      io.stderr.write('conversation cleared\n');
      continue;
    }
    if (input === '/tools') {
      for (const tool of registry.listTools())
        io.stderr.write(`${tool.name}  ${sanitizeForTerminal(tool.title ?? tool.description.split('\n')[0] ?? '')}\n`);
      continue;
    }
    if (input === '/servers') {
      for (const s of registry.servers)
        io.stderr.write(`${s.name}: ${s.status}${s.error ? ` (${sanitizeForTerminal(s.error)})` : `, ${s.tools} tool(s)`}\n`);
      continue;
    }
    const printer = createEventPrinter({ stdout: io.stdout, stderr: io.stderr, showText: true, quiet: options.quiet, color });
    const run = agent.send(input);
    io.interrupts.setTarget(run);
    try {
      await collectRun(run, (event) => printer.print(event));
    } catch (error) {
      // A provider failure ends this turn, not the chat.
      io.stderr.write(`mcp-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    } finally {
      io.interrupts.setTarget(undefined);
      printer.finish();
    }
  }
}
