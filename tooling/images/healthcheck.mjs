// The images' HEALTHCHECK: finds the server process in the container (its argv names bin/mcp-server-<name>.js),
// reads the transport, host and port it was started with (flags first, then its environment, then the runner's
// defaults), and for http/sse asks GET /healthz on that port; a stdio server is healthy while it runs. Exit 0
// healthy, 1 not. Plain Node (no curl or shell in the image needed); never writes to anything but stdout/stderr.
import { readdirSync, readFileSync } from 'node:fs';

const BIN = /\/bin\/mcp-server-[a-z0-9-]+\.js$/;
const TIMEOUT_MS = 4000;

/** { argv, env } of the server process, or undefined. */
function findServer() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (!argv.some((a) => BIN.test(a))) continue;
      const env = {};
      for (const pair of readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0')) {
        const eq = pair.indexOf('=');
        if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      return { argv: argv.slice(argv.findIndex((a) => BIN.test(a)) + 1), env };
    } catch {
      // a process that ended meanwhile, or one of another user
    }
  }
  return undefined;
}

/** The last value of `--name value` or `--name=value` in argv. */
function flag(argv, name) {
  let value;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === `--${name}` && i + 1 < argv.length) value = argv[++i];
    else if (argv[i].startsWith(`--${name}=`)) value = argv[i].slice(name.length + 3);
  }
  return value;
}

const server = findServer();
if (!server) {
  console.log('unhealthy: no mcp-server process in this container');
  process.exit(1);
}
const { argv, env } = server;
const transport = (flag(argv, 'transport') ?? env.MCP_TRANSPORT ?? 'stdio').toLowerCase();
if (transport === 'stdio') {
  console.log('healthy: stdio server running');
  process.exit(0);
}
const envPort = /^\d{1,5}$/.test(env.PORT ?? '') && Number(env.PORT) <= 65535 ? env.PORT : undefined; // a bad PORT is ignored
const port = Number(flag(argv, 'port') ?? envPort ?? 3000);
let host = flag(argv, 'host') ?? env.MCP_HOST ?? '127.0.0.1';
if (host === '0.0.0.0') host = '127.0.0.1';
else if (host === '::' || host === '[::]') host = '[::1]';
else if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
if (port === 0) {
  console.log('healthy: --port 0 (a port picked at start) is not checked');
  process.exit(0);
}
try {
  const res = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = await res.text();
  console.log(`${res.status === 200 ? 'healthy' : 'unhealthy'}: GET /healthz on ${host}:${port}: ${res.status} ${body.slice(0, 200)}`);
  process.exit(res.status === 200 ? 0 : 1);
} catch (error) {
  console.log(`unhealthy: GET /healthz on ${host}:${port}: ${error instanceof Error ? (error.cause?.message ?? error.message) : error}`);
  process.exit(1);
}
