// The Streamable HTTP floor: a bare `node:http` handler (no libraries) answering the same JSON as
// floor.mjs does over stdio (`initialize`, `server/discover`, `tools/list`, `tools/call` of `echo`),
// each POST with one JSON response; a notification gets 202, a GET (the client's optional SSE
// stream) 405, as a server without that stream answers. No sessions, no validation: what Node's HTTP
// stack costs per call, with no server library in between.
//
//   node src/httpFloor.mjs [--port <n>]   (127.0.0.1; port 0 = a free one; other arguments ignored)
// Prints "listening on http://127.0.0.1:<port>/mcp" on stderr (what httpServer.ts waits for) and
// exits on SIGTERM.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { answer } from './floor.mjs';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } }, strict: false });

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    const reply = answer(msg);
    if (!reply) {
      res.writeHead(202).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
  });
});

server.listen(Number(values.port), '127.0.0.1', () => {
  const { port } = server.address();
  process.stderr.write(`[http-floor] info: listening on http://127.0.0.1:${port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
