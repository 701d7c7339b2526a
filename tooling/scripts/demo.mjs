#!/usr/bin/env node
// `pnpm demo`: builds what the tour needs, then runs the tour (apps/tour), with nothing in between but one line
// and turbo's short summary: the build's logs are shown only for a task that fails (turbo's
// --output-logs=errors-only), turbo's one-time telemetry notice is off (TURBO_TELEMETRY_DISABLED, set here
// rather than in the package.json script so that it also works in Windows' cmd), and pnpm does not echo the
// tour's script. Plain Node, so it runs the same on every platform.
import { spawnSync } from 'node:child_process';
import { PNPM, root } from './lib.mjs';

// The pnpm running this script (`pnpm demo` sets npm_execpath to its pnpm.cjs); otherwise the repo's pnpm.
const { npm_execpath: execPath = '' } = process.env;
const pnpm = /pnpm\.c?js$/.test(execPath) ? [process.execPath, execPath] : PNPM;
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1' };

function pnpmRun(args) {
  const res = spawnSync(pnpm[0], [...pnpm.slice(1), ...args], {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: pnpm[0] === 'npx' && process.platform === 'win32',
  });
  if (res.error) throw res.error;
  if (res.status !== 0) process.exit(res.status ?? 1);
}

console.log('Building the servers and the tour (only errors are shown; a few minutes on a fresh clone, seconds after that)…');
pnpmRun(['exec', 'turbo', 'run', 'build', '--filter=@mcpkit/tour...', '--output-logs=errors-only']);
pnpmRun(['--silent', '--filter', '@mcpkit/tour', 'start']);
