/**
 * A few `tools/call`s through a throwaway server instance over the SDK's in-memory transport, for the warm-up
 * (./warmup.ts): the SDK's request path, the call's validation and result encoding and our tool wrappers run
 * once, so V8 has compiled them before a client's first call. Nothing leaves the process; the instance is
 * closed afterwards. Loaded on demand, by the warm-up only.
 */
import { InMemoryTransport, type JSONRPCMessage, type McpServer } from '@modelcontextprotocol/server';

/** How long one message of it may take before it is given up (the warm-up then just goes on). */
const ANSWER_TIMEOUT_MS = 10_000;

export interface WarmCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Initializes `server` as a 2025-11-25 client would, makes the calls one after another (while `more()` says so,
 * asked after a turn of the event loop between calls), closes it. Resolves with the JSON-RPC answers.
 */
export async function callInMemory(server: McpServer, calls: readonly WarmCall[], more: () => boolean = () => true): Promise<unknown[]> {
  const [client, transport] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  client.onmessage = (message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number') waiting.get(id)?.(message);
  };
  const request = (id: number, method: string, params: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      timer.unref();
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      client.send({ jsonrpc: '2.0', id, method, params }).catch(reject);
    });
  await server.connect(transport);
  try {
    await request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-server-git warm-up', version: '0' },
    });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answers: unknown[] = [];
    for (const [i, call] of calls.entries()) {
      // Between calls, a turn of the event loop: a client's message is read (and its call stops the warm-up).
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (!more()) break;
      answers.push(await request(2 + i, 'tools/call', { name: call.name, arguments: call.arguments }));
    }
    return answers;
  } finally {
    await server.close();
  }
}
