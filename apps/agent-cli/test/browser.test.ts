import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { browserCommand, openInBrowser } from '../src/browser.js';

/** What a hostile authorization server might put in its URL: every character `cmd` treats specially. */
const HOSTILE = 'https://as.example/authorize?client_id=a&redirect_uri=x|calc.exe&state="q"^&whoami&x=%|y';

const dir = mkdtempSync(join(tmpdir(), 'agent-cli-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('browserCommand', () => {
  it('opens without a shell on every platform: the URL is one argument, never a command line', () => {
    const href = new URL(HOSTILE).href;
    expect(href).not.toContain('"');
    expect(browserCommand(HOSTILE, {}, 'win32')).toEqual(['rundll32', ['url.dll,FileProtocolHandler', href]]);
    expect(browserCommand(HOSTILE, {}, 'darwin')).toEqual(['open', [href]]);
    expect(browserCommand(HOSTILE, {}, 'linux')).toEqual(['xdg-open', [href]]);
    expect(browserCommand(HOSTILE, { BROWSER: 'firefox:chromium' }, 'win32')).toEqual(['firefox', [href]]);
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      const [command, args] = browserCommand(HOSTILE, {}, platform);
      expect(command).not.toMatch(/^cmd/i);
      expect(args).not.toContain('/c');
      // The URL is passed whole, not escaped for a shell.
      expect(args.at(-1)).toContain('|calc.exe');
    }
  });

  it('refuses what is not an http(s) URL', () => {
    for (const url of ['file:///etc/passwd', 'ms-settings:privacy', 'javascript:alert(1)', 'not a url', 'C:\\Windows\\calc.exe']) {
      expect(() => browserCommand(url, {}, 'win32')).toThrow(/^refusing to open a browser/);
    }
    expect(browserCommand('http://127.0.0.1:9/a', {}, 'linux')).toEqual(['xdg-open', ['http://127.0.0.1:9/a']]);
  });
});

describe('openInBrowser', () => {
  // A $BROWSER that writes the arguments it got, one a line.
  const script = join(dir, 'browser.sh');
  writeFileSync(script, '#!/bin/sh\nprintf "%s\\n" "$@" > "$0.args.tmp" && mv "$0.args.tmp" "$0.args"\n');
  chmodSync(script, 0o755);
  const argsFile = `${script}.args`;

  it('hands the hostile URL over as one argument, unchanged by any shell', async () => {
    await openInBrowser(HOSTILE, { BROWSER: script }, 'linux');
    await vi.waitFor(() => expect(existsSync(argsFile)).toBe(true));
    expect(readFileSync(argsFile, 'utf8')).toBe(`${new URL(HOSTILE).href}\n`);
    rmSync(argsFile);
  });

  it('rejects a non-http(s) URL without starting anything', async () => {
    await expect(openInBrowser('file:///etc/passwd', { BROWSER: script }, 'linux')).rejects.toThrow(/^refusing to open a browser/);
    expect(existsSync(argsFile)).toBe(false);
  });
});
