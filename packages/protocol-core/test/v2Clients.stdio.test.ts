// The official v2 client in its three negotiation modes, and the v1 SDK client, against the built
// fixture bin over stdio and Streamable HTTP: every era lists and calls a tool on one process.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { spawnStdioV1 } from '../src/testing/index.js';

const bin = fileURLToPath(new URL('./fixtures/cliServer.mjs', import.meta.url));
const MODES = [
  ['legacy', { mode: 'legacy' }, 'legacy'],
  ['auto', { mode: 'auto' }, 'modern'],
  ['pinned 2026-07-28', { mode: { pin: '2026-07-28' } }, 'modern'],
] as const;

function stdioParams() {
  return { command: process.execPath, args: [bin], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' as const };
}

/** Starts the bin on an HTTP port picked by the OS and resolves its endpoint from the stderr banner. */
async function startHttpBin(): Promise<AsyncDisposable & { url: URL }> {
  const child = spawn(process.execPath, [bin, '--transport', 'http', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<URL>((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /(http:\/\/[^\s]+\/mcp)/.exec(text);
      if (found?.[1]) resolve(new URL(found[1]));
    });
    child.once('exit', () => reject(new Error(`bin exited: ${text}`)));
  });
  return { url, [Symbol.asyncDispose]: async () => void child.kill('SIGTERM') };
}

async function listAndCall(client: { listTools(): Promise<{ tools: { name: string }[] }>; callTool(p: object): Promise<unknown> }) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('greet');
  expect(await client.callTool({ name: 'greet', arguments: { who: 'v2' } })).toMatchObject({
    content: [{ type: 'text', text: 'hello v2' }],
  });
}

describe('the v2 client, every negotiation mode', () => {
  for (const [label, versionNegotiation, era] of MODES) {
    it(`${label} over stdio`, async () => {
      const client = new Client({ name: 'v2-test', version: '0.0.0' }, { versionNegotiation: versionNegotiation as never });
      await client.connect(new StdioClientTransport(stdioParams()));
      try {
        expect(client.getProtocolEra()).toBe(era);
        await listAndCall(client);
      } finally {
        await client.close();
      }
    });
    it(`${label} over Streamable HTTP`, async () => {
      await using server = await startHttpBin();
      const client = new Client({ name: 'v2-test', version: '0.0.0' }, { versionNegotiation: versionNegotiation as never });
      await client.connect(new StreamableHTTPClientTransport(server.url));
      try {
        expect(client.getProtocolEra()).toBe(era);
        await listAndCall(client);
      } finally {
        await client.close();
      }
    });
  }
});

describe('the v1 SDK client still works', () => {
  it('over stdio (spawnStdioV1, the helper the v1-client tests use)', async () => {
    await using proc = await spawnStdioV1(bin, { name: 'v1-test' });
    expect(proc.client).toBeInstanceOf(V1Client);
    await listAndCall(proc.client);
  });
  it('over Streamable HTTP (a session)', async () => {
    await using server = await startHttpBin();
    const client = new V1Client({ name: 'v1-test', version: '0.0.0' });
    const transport = new V1HttpTransport(server.url);
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeTypeOf('string');
      await listAndCall(client);
    } finally {
      await client.close();
    }
  });
});
