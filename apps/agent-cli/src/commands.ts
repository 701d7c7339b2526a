/**
 * The commands beside the chat: `mcp-agent login <server>`, `logout <server>` and `servers`.
 * Each reads the servers config (`-c`), keeps logins in the token store under the user's config
 * directory (`--config-dir`, `MCP_AGENT_CONFIG_DIR`, `$XDG_CONFIG_HOME/mcp-agent`,
 * `~/.config/mcp-agent`), and never prints a token.
 */
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  createRegistry,
  createTokenStore,
  DEFAULT_LOGIN_TIMEOUT_MS,
  defaultConfigDir,
  errorMessage,
  type HttpServerConfig,
  hasStaticCredential,
  loadServersConfig,
  login,
  logout,
  type ServerConfig,
  type ServerReport,
  type TokenStore,
} from '@mcpkit/agent';
import { openInBrowser } from './browser.js';
import { parseDuration, UsageError } from './options.js';
import { VERSION } from './version.js';

/** What the commands read and write (a subset of `MainIo`). */
export interface CommandIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
  /** Opens the authorization URL (tests walk it over HTTP); default: `$BROWSER` or the platform's opener. */
  openUrl?: (url: string) => void | Promise<void>;
}

const COMMANDS = ['login', 'logout', 'servers'] as const;
export type CommandName = (typeof COMMANDS)[number];

export function isCommand(word: string | undefined): word is CommandName {
  return (COMMANDS as readonly string[]).includes(word ?? '');
}

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  'config-dir': { type: 'string' },
  json: { type: 'boolean' },
  scope: { type: 'string' },
  'no-browser': { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Which flags each command takes. */
const FLAGS: Record<CommandName, readonly string[]> = {
  login: ['config', 'config-dir', 'scope', 'no-browser', 'timeout', 'help'],
  logout: ['config', 'config-dir', 'help'],
  servers: ['config', 'config-dir', 'json', 'help'],
};

interface CommandOptions {
  command: CommandName;
  config: string;
  configDir: string;
  server?: string;
  json: boolean;
  scope?: string;
  browser: boolean;
  timeoutMs: number;
  help: boolean;
}

function commandHelp(command: CommandName): string {
  const common = `  -c, --config <file>     the mcpServers JSON file (required)
      --config-dir <dir>  where logins are kept (env MCP_AGENT_CONFIG_DIR; default
                          $XDG_CONFIG_HOME/mcp-agent or ~/.config/mcp-agent)
`;
  if (command === 'login') {
    return `Usage: mcp-agent login <server> -c <file> [options]

Log in to an HTTP server of the config that asks for OAuth: the authorization URL is printed
here and opened in the browser; after you log in there, the tokens are kept (only you can read
the file) and refreshed by themselves.

${common}      --scope <scopes>    ask for these scopes too (space-separated)
      --no-browser        only print the URL (open it on any machine that can reach this one's
                          127.0.0.1 callback, e.g. through an SSH tunnel)
      --timeout <time>    how long to wait for the browser (default ${DEFAULT_LOGIN_TIMEOUT_MS / 60_000}m)
`;
  }
  if (command === 'logout') {
    return `Usage: mcp-agent logout <server> -c <file>

Forget the login of a server: its tokens are revoked where the authorization server offers it,
and deleted here.

${common}`;
  }
  return `Usage: mcp-agent servers -c <file> [--json]

Connect to every server of the config and show, for each: its transport, whether it connected
(or why not), its tools, and how it authenticates (none, token from "headers", oauth, needs login).
Exits 1 when any server did not connect.

${common}      --json              the same as JSON on stdout (never with tokens)
`;
}

function parseCommand(argv: string[], env: NodeJS.ProcessEnv): CommandOptions {
  const command = argv[0] as CommandName;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv.slice(1), options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    const name = /Unknown option '([^'=]*)/.exec(errorMessage(error))?.[1];
    throw new UsageError(
      name ? `${command}: unknown option ${name} (see mcp-agent ${command} --help)` : `${command}: ${errorMessage(error).split('\n')[0]}`,
    );
  }
  const { values, positionals } = parsed;
  for (const [flag, value] of Object.entries(values)) {
    if (value !== undefined && !FLAGS[command].includes(flag)) throw new UsageError(`${command}: --${flag} does not apply here`);
  }
  const options: CommandOptions = {
    command,
    config: values.config ?? '',
    configDir: values['config-dir'] !== undefined ? resolve(values['config-dir']) : defaultConfigDir(env),
    json: values.json === true,
    browser: values['no-browser'] !== true,
    timeoutMs: values.timeout !== undefined ? parseDuration('--timeout', values.timeout) : DEFAULT_LOGIN_TIMEOUT_MS,
    help: values.help === true,
  };
  if (options.help) return options;
  if (values['config-dir'] !== undefined && values['config-dir'].trim() === '')
    throw new UsageError('--config-dir: expected a directory, got ""');
  if (options.config.trim() === '') throw new UsageError(`${command}: which servers config? pass -c <file>`);
  if (values.scope !== undefined) {
    if (values.scope.trim() === '') throw new UsageError('--scope: expected scope names, got ""');
    options.scope = values.scope;
  }
  const wantsServer = command !== 'servers';
  if (wantsServer && positionals.length === 0) throw new UsageError(`${command}: which server? mcp-agent ${command} <server> -c <file>`);
  if (positionals.length > (wantsServer ? 1 : 0)) {
    throw new UsageError(`${command}: unexpected argument ${JSON.stringify(positionals[wantsServer ? 1 : 0])}`);
  }
  if (wantsServer) options.server = positionals[0];
  return options;
}

/** The config entry `name`, which must be an HTTP server without a static credential. */
function loginTarget(servers: ServerConfig[], name: string, command: CommandName): HttpServerConfig {
  const server = servers.find((candidate) => candidate.name === name);
  if (!server) {
    const names = servers.map((s) => s.name).join(', ');
    throw new UsageError(`${command}: no server named ${JSON.stringify(name)} in the config${names ? ` (it has: ${names})` : ''}`);
  }
  if (server.kind !== 'http') throw new UsageError(`${command}: "${name}" is a stdio server; only HTTP servers log in`);
  if (command === 'login' && hasStaticCredential(server)) {
    throw new UsageError(`${command}: "${name}" sends a static credential from "headers"; remove it to use an OAuth login instead`);
  }
  return server;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '))
    .join('\n');
}

/** One line per server (or JSON): name, transport, state, tools, auth. */
function showServers(reports: ServerReport[], json: boolean): string {
  if (json) {
    const plain = reports.map((r) => ({
      name: r.name,
      transport: r.transport,
      state: r.status,
      ...(r.error !== undefined ? { error: r.error } : {}),
      tools: r.tools,
      auth: r.auth,
      ...(r.protocolVersion !== undefined ? { protocolVersion: r.protocolVersion } : {}),
      ...(r.serverInfo !== undefined ? { serverInfo: { name: r.serverInfo.name, version: r.serverInfo.version } } : {}),
    }));
    return `${JSON.stringify(plain, null, 2)}\n`;
  }
  if (reports.length === 0) return 'no servers in the config\n';
  const rows = [['NAME', 'TRANSPORT', 'TOOLS', 'AUTH', 'STATE']];
  for (const r of reports) {
    const state = r.status === 'connected' ? 'connected' : `failed: ${r.error ?? 'unknown'}`;
    rows.push([r.name, r.transport, String(r.tools), r.auth, state]);
  }
  return `${table(rows)}\n`;
}

/** Run `login`, `logout` or `servers`; the exit code. */
export async function runCommand(io: CommandIo): Promise<number> {
  const command = io.argv[0] as CommandName;
  const fail = (code: number, message: string) => {
    io.stderr.write(`mcp-agent: ${message}\n`);
    return code;
  };
  let options: CommandOptions;
  try {
    options = parseCommand(io.argv, io.env);
  } catch (error) {
    if (error instanceof UsageError) return fail(2, error.message);
    throw error;
  }
  if (options.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  let servers: ServerConfig[];
  try {
    servers = await loadServersConfig(options.config, io.env);
  } catch (error) {
    return fail(2, errorMessage(error));
  }
  const store: TokenStore = createTokenStore(join(options.configDir, 'auth'));
  const log = (line: string) => io.stderr.write(`${line}\n`);
  try {
    if (command === 'servers') {
      const registry = await createRegistry(servers, { clientVersion: VERSION, oauth: { store } });
      let failed: number;
      try {
        const reports = registry.serverReports();
        io.stdout.write(showServers(reports, options.json));
        failed = reports.filter((r) => r.status !== 'connected').length;
      } finally {
        await registry.close();
      }
      // Exit 1 when any server is not connected, so a script or a health check can tell.
      if (failed > 0) return fail(1, `servers: ${failed} of ${servers.length} did not connect`);
      return 0;
    }
    const server = loginTarget(servers, options.server as string, command);
    if (command === 'logout') {
      const { removed, revocation } = await logout(server, { store });
      if (!removed) log(`no login stored for "${server.name}"`);
      else {
        const how = {
          revoked: 'revoked at the authorization server and deleted',
          'not-offered': 'deleted (the authorization server offers no revocation)',
          failed: 'deleted here; revoking them at the authorization server failed',
          'nothing-to-revoke': 'deleted',
        }[revocation];
        log(`logged out of "${server.name}": tokens ${how}`);
      }
      return 0;
    }
    const openUrl = options.browser ? (io.openUrl ?? ((url: string) => openInBrowser(url, io.env))) : () => {};
    const result = await login(server, {
      store,
      openUrl,
      log,
      timeoutMs: options.timeoutMs,
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
    });
    const tools = `${result.tools} tool${result.tools === 1 ? '' : 's'}`;
    log(result.status === 'logged-in' ? `logged in to "${server.name}" (${tools})` : `"${server.name}" did not ask for a login (${tools})`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(2, error.message);
    return fail(1, errorMessage(error));
  }
}
