// The floor for every cold start: a bare Node process that answers `initialize` over stdio
// (newline-delimited JSON-RPC, as an MCP stdio server does) and exits when stdin closes.
// No imports beyond Node itself, so its start time is Node's own start-up plus one round trip.
// It also answers `tools/list` (one `echo` tool) and `tools/call` of `echo` ("Echo: <message>"),
// the floor of a call's round trip: the client and the pipe, with no server library in between.
//
// Both eras: a 2026-07-28 client's `server/discover` gets the versions, capabilities, cache hints
// and server info the spec asks for, and its requests (those carrying the protocol version in
// `_meta`) get `resultType` and, for `tools/list`, cache hints. Nothing is validated, as nothing is
// in a floor. `answer` is exported for the HTTP floor (httpFloor.mjs), which serves the same JSON.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { name: 'floor', version: '0.0.0' };
const ECHO = { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };

/** The JSON-RPC response to one parsed message, or undefined (a notification, or a method the floor does not serve). */
export function answer(msg) {
  if (msg === null || typeof msg !== 'object' || msg.id === undefined) return undefined;
  const modern = msg.params?._meta?.[PROTOCOL_VERSION_KEY] !== undefined;
  const reply = (result) => ({ jsonrpc: '2.0', id: msg.id, result: modern ? { resultType: 'complete', ...result } : result });
  switch (msg.method) {
    case 'initialize':
      return reply({ protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: SERVER_INFO });
    case 'server/discover':
      return reply({
        supportedVersions: ['2026-07-28', '2025-11-25'],
        capabilities: { tools: {} },
        ttlMs: 3_600_000,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    case 'tools/list':
      return reply(modern ? { tools: [ECHO], ttlMs: 3_600_000, cacheScope: 'public' } : { tools: [ECHO] });
    case 'tools/call':
      return reply({ content: [{ type: 'text', text: `Echo: ${msg.params?.arguments?.message}` }] });
    default:
      return { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } };
  }
}

function serveStdio() {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      const res = answer(msg);
      if (res) process.stdout.write(`${JSON.stringify(res)}\n`);
    }
  });
  process.stdin.on('end', () => process.exit(0));
}

// Serve when run as the script (not when httpFloor.mjs imports `answer`); realpath, as import.meta.url is resolved.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) serveStdio();
