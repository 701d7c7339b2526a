/**
 * Opening the authorization URL in the user's browser: `$BROWSER` (a command, the URL as its one
 * argument) when set, else the platform's opener (`open`, `xdg-open`, `start`). The process is
 * detached and never waited for; a failure to start it is reported, and the URL is printed anyway.
 */
import { spawn } from 'node:child_process';

/** The command line that opens `url` here. */
function opener(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]] {
  const browser = env.BROWSER?.trim();
  // $BROWSER may hold several commands separated by ":" (the convention); the first one is used.
  if (browser) return [browser.split(':')[0] as string, [url]];
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

/** Open `url` in a browser; resolves once the opener started, rejects when it cannot be started. */
export function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const [command, args] = opener(url, env, platform);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true });
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
