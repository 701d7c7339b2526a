// The floor for every cold start: a bare Node process that answers `initialize` over stdio
// (newline-delimited JSON-RPC, as an MCP stdio server does) and exits when stdin closes.
// No imports beyond Node itself, so its start time is Node's own start-up plus one round trip.
// It also answers `tools/list` (one `echo` tool) and `tools/call` of `echo` ("Echo: <message>"),
// the floor of a call's round trip: the client and the pipe, with no server library in between.
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
    if (msg.method === 'initialize' && msg.id !== undefined) {
      const result = {
        protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
        capabilities: {},
        serverInfo: { name: 'floor', version: '0.0.0' },
      };
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
    } else if (msg.method === 'tools/list' && msg.id !== undefined) {
      const tool = { name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } };
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [tool] } })}\n`);
    } else if (msg.method === 'tools/call' && msg.id !== undefined) {
      const result = { content: [{ type: 'text', text: `Echo: ${msg.params?.arguments?.message}` }] };
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
    }
  }
});
process.stdin.on('end', () => process.exit(0));
