/**
 * Where the agent keeps what it must remember between runs (the OAuth logins): the user's config
 * directory, `$XDG_CONFIG_HOME/mcp-agent` or `~/.config/mcp-agent`, or `$MCP_AGENT_CONFIG_DIR`.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** The environment variable that moves the config directory (tests, several profiles). */
export const CONFIG_DIR_ENV = 'MCP_AGENT_CONFIG_DIR';

/** `$MCP_AGENT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mcp-agent` (an absolute one), else `~/.config/mcp-agent`. */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env[CONFIG_DIR_ENV];
  if (own !== undefined && own.trim() !== '') return resolve(own);
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'mcp-agent');
  return join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), '.config', 'mcp-agent');
}
