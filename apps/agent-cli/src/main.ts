/**
 * The whole CLI as one function of its inputs (argv, env, streams) returning the exit code, so it
 * is the same code the bin runs and the tests call.
 */
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import {
  type Agent,
  type AgentOptions,
  createAgent,
  createOpenAIClient,
  createRegistry,
  createSampleHandler,
  createTokenStore,
  errorMessage,
  isMcpError,
  loadServersConfig,
  type McpRegistry,
  type ServerConfig,
} from '@mcpkit/agent';
import { openInBrowser } from './browser.js';
import { isCommand, runCommand } from './commands.js';
import { helpText } from './help.js';
import { createTerminalHost } from './host.js';
import { runChat } from './interactive.js';
import { handleInterrupts } from './interrupt.js';
import { runOnce } from './oneShot.js';
import { CLI_DEFAULTS, type CliOptions, parseCliOptions, UsageError } from './options.js';
import { createReadlinePrompter, type Prompter } from './terminal/prompter.js';
import { VERSION } from './version.js';

export interface MainIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /** Opens an OAuth authorization URL (tests walk it over HTTP). Default: `$BROWSER` or the platform's opener. */
  openUrl?: (url: string) => void | Promise<void>;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--context-window` and `--defer-threshold` as the agent's `toolSearch` option. */
function toolSearchOptions(options: CliOptions): AgentOptions['toolSearch'] {
  if (options.deferThresholdTokens === 'off') return false;
  return { contextWindowTokens: options.contextWindowTokens, thresholdTokens: options.deferThresholdTokens };
}

export async function main(io: MainIo): Promise<number> {
  const fail = (code: number, message: string) => {
    io.stderr.write(`mcp-agent: ${message}\n`);
    return code;
  };

  if (isCommand(io.argv[0])) return runCommand(io);

  let options: CliOptions;
  try {
    options = parseCliOptions(io.argv, io.env);
  } catch (error) {
    if (error instanceof UsageError) return fail(2, error.message);
    throw error;
  }
  if (options.help) {
    io.stdout.write(helpText());
    return 0;
  }
  if (options.version) {
    io.stdout.write(`mcp-agent ${VERSION}\n`);
    return 0;
  }

  let servers: ServerConfig[] = [];
  if (options.config) {
    try {
      servers = await loadServersConfig(options.config, io.env);
    } catch (error) {
      return fail(2, errorMessage(error));
    }
  }

  // OpenAI itself refuses every request without a key: say so now, not after the servers started.
  if (options.apiKey === undefined && options.baseUrl === CLI_DEFAULTS.baseUrl) {
    return fail(
      2,
      `no API key: ${options.apiKeyEnv} is not set and the model is OpenAI's (${CLI_DEFAULTS.baseUrl}); ` +
        `set ${options.apiKeyEnv}, or point --base-url at a local server such as http://localhost:11434/v1`,
    );
  }

  let prompt = options.prompt;
  if (prompt === '-') prompt = await readAll(io.stdin);
  if (prompt !== undefined && prompt.trim() === '') return fail(2, '--prompt: the prompt is empty');

  // Questions (approvals, forms) need a person at a terminal. In one-shot mode stdin is free for
  // them when it is a TTY; in chat mode the same readline serves chat and questions.
  const interactive = prompt === undefined;
  const canAsk = io.stdin.isTTY === true || options.askStdin;
  if (options.askStdin && options.prompt === '-') return fail(2, '--ask-stdin: stdin is already the prompt (-p -)');
  // Ctrl-C on a terminal reaches readline (raw mode), not the process: it hands it on as SIGINT.
  const prompter: Prompter | undefined = canAsk || interactive ? createReadlinePrompter(io.stdin, io.stderr) : undefined;
  const color = io.stderr.isTTY === true && !io.env.NO_COLOR;

  const host = createTerminalHost({
    prompter: canAsk ? prompter : undefined,
    stderr: io.stderr,
    quiet: options.quiet,
    color,
    yes: options.yes,
  });
  const llm = createOpenAIClient({ baseUrl: options.baseUrl, model: options.model, apiKey: io.env[options.apiKeyEnv] || undefined });

  let registry: McpRegistry | undefined;
  let agent: Agent;
  let exiting = false;
  const interrupts = handleInterrupts(
    () => {
      if (exiting) return;
      exiting = true;
      io.stderr.write('\nmcp-agent: interrupted\n');
      prompter?.close();
      void (registry?.close() ?? Promise.resolve()).finally(() => process.exit(130));
    },
    (text) => host.onNotice?.(text),
  );

  try {
    registry = await createRegistry(servers, {
      host,
      clientVersion: VERSION,
      roots: options.roots,
      sample: createSampleHandler(llm, host),
      defaultProtocol: options.protocol,
      // OAuth logins from `mcp-agent login`; with a person at the terminal, a server asking for a
      // wider scope gets one browser round (the URL is printed too), else the error says what to run.
      oauth: {
        store: createTokenStore(join(options.configDir, 'auth')),
        ...(interactive || io.stdin.isTTY === true
          ? { openUrl: io.openUrl ?? ((url: string) => openInBrowser(url, io.env)), log: (line: string) => io.stderr.write(`${line}\n`) }
          : {}),
      },
    });
    agent = createAgent({
      llm,
      router: registry,
      host,
      mode: options.toolMode,
      stream: options.stream,
      maxSteps: options.maxSteps,
      toolTimeoutMs: options.toolTimeoutMs,
      maxResultChars: options.maxResultChars,
      toolSearch: toolSearchOptions(options),
      systemPrompt: options.system,
      approval: {
        allowAll: options.yes,
        autoAllowReadOnly: options.autoApproveReadOnly,
        policies: new Map(servers.map((s) => [s.name, s.approval])),
      },
    });
    if (!interactive) {
      return await runOnce(agent, prompt as string, { ...io, options, interrupts, llmName: llm.name });
    }
    return await runChat(agent, prompter as Prompter, { ...io, options, interrupts, registry });
  } catch (error) {
    if (isMcpError(error, 'CONFIG_ERROR')) return fail(2, errorMessage(error));
    return fail(1, errorMessage(error));
  } finally {
    interrupts.dispose();
    prompter?.close();
    await registry?.close();
  }
}
