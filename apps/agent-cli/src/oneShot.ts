/** `mcp-agent -p "…"`: answer once, the reply on stdout as it streams (or the transcript with --json). */
import { type Agent, collectRun } from '@mcpkit/agent';
import { createEventPrinter, type RunIo } from './output.js';
import { buildTranscript } from './transcript.js';

export interface OneShotIo extends RunIo {
  llmName: string;
}

export async function runOnce(agent: Agent, prompt: string, io: OneShotIo): Promise<number> {
  const { options } = io;
  const printer = createEventPrinter({
    stdout: io.stdout,
    stderr: io.stderr,
    showText: !options.json,
    quiet: options.quiet,
    color: io.stderr.isTTY === true && !io.env.NO_COLOR,
  });
  const run = agent.send(prompt);
  io.interrupts.setTarget(run);
  const result = await collectRun(run, (event) => printer.print(event));
  io.interrupts.setTarget(undefined);
  printer.finish();
  if (options.json) io.stdout.write(`${JSON.stringify(buildTranscript(io.llmName, agent.session.getMessages(), result), null, 2)}\n`);
  return result.cancelled ? 130 : 0;
}
