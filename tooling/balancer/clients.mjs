// The official SDK clients the balancer check drives through HAProxy: the v2 client (`@modelcontextprotocol/client`)
// in each negotiation mode, and the v1 client (`@modelcontextprotocol/sdk`, 2025 sessions only).
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const INFO = { name: 'mcpkit-balancer-check', version: '0.0.0' };

/**
 * The client runs, in order. `era` is what the client lands on against our servers: `2025` (an `initialize`
 * handshake and a session) or `2026` (2026-07-28: no session, every request on its own).
 */
export const CLIENTS = [
  { id: 'v2 legacy', era: '2025' },
  { id: 'v1', era: '2025' },
  { id: 'v2 auto', era: '2026' },
  { id: 'v2 2026-07-28', era: '2026' },
];

/**
 * Connects client `id` to `url`. Resolves to `{ client, sessionId(), sent(), close() }`: `sent()` is how many HTTP
 * requests the client made (each is one line of HAProxy's log once it ends), `sessionId()` the 2025 session's id.
 * With `elicit`, the client declares form elicitation and answers each `elicitation/create` with `elicit(params)`.
 */
export async function connectClient(id, url, { elicit } = {}) {
  let sent = 0;
  const fetchCounted = (input, init) => {
    sent += 1;
    return fetch(input, init);
  };
  const endpoint = new URL(url);
  let client;
  let transport;
  if (id === 'v1') {
    client = new V1Client(INFO, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
    if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
    transport = new V1Transport(endpoint, { fetch: fetchCounted });
  } else {
    const mode = { 'v2 legacy': 'legacy', 'v2 auto': 'auto', 'v2 2026-07-28': { pin: '2026-07-28' } }[id];
    if (mode === undefined) throw new Error(`unknown client ${id}`);
    client = new V2Client(INFO, { capabilities: elicit ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode } });
    if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params));
    transport = new V2Transport(endpoint, { fetch: fetchCounted });
  }
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    error.sent = sent;
    throw error;
  }
  return {
    client,
    sessionId: () => transport.sessionId,
    sent: () => sent,
    close: () => client.close(),
  };
}

/** The text of a tool result's content (its text parts joined), throwing on an `isError` result. */
export async function callText(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  if (result.isError) throw new Error(`${name} answered isError: ${text.slice(0, 500)}`);
  return text;
}
