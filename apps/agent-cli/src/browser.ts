/**
 * Opening the authorization URL in the user's browser: `$BROWSER` (a command, the URL as its one
 * argument) when set, else the platform's opener (`open` on macOS, `rundll32
 * url.dll,FileProtocolHandler` on Windows, `xdg-open` elsewhere). No shell is ever involved: the
 * URL comes from an authorization server and may carry `|`, `&`, `"` or `^`, which `cmd /c start`
 * would read as commands. Only http(s) URLs are opened (a `file:` or `ms-settings:` URL is
 * refused), in their normalised form. The process is detached and never waited for; a failure to
 * start it is reported, and the URL is printed anyway.
 */
import { spawn } from 'node:child_process';

/**
 * The program and its arguments that open `url` here (a pure function of its inputs).
 * @throws Error when `url` is not an absolute http(s) URL.
 */
export function browserCommand(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('refusing to open a browser: the authorization URL is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`refusing to open a browser for a ${JSON.stringify(parsed.protocol.slice(0, 20))} URL (only http and https)`);
  }
  // The normalised form: spaces, quotes and control characters percent-encoded.
  const href = parsed.href;
  const browser = env.BROWSER?.trim();
  // $BROWSER may hold several commands separated by ":" (the convention); the first one is used.
  if (browser) return [browser.split(':')[0] as string, [href]];
  if (platform === 'darwin') return ['open', [href]];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', href]];
  return ['xdg-open', [href]];
}

/** Open `url` in a browser; resolves once the opener started, rejects when it cannot be started or the URL is refused. */
export function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const [command, args] = browserCommand(url, env, platform);
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true, shell: false });
    child.once('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
