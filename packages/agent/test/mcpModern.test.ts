/**
 * A 2026-07-28 server (built here from `@modelcontextprotocol/server` v2, served in-process through
 * `serveStdio` over an in-memory pair): pinned and auto modes connect to it, and its MRTR input
 * requests (elicitation, sampling, roots) are fulfilled through the same host paths as a 2025
 * server's requests: `host.elicit`, the sampling approval, the roots list.
 */
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { type CallToolResult, InMemoryTransport, type InputRequiredResult, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type AgentHost,
  createRegistry,
  createSampleHandler,
  type LLMClient,
  type McpRegistry,
  type ProtocolMode,
  type SamplingApprovalRequest,
  type ServerConfig,
} from '../src/index.js';

function text(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
}

/** The server: each tool asks for one kind of input through `inputRequired` and reports the answer. */
function modernServer(): McpServer {
  const server = new McpServer({ name: 'modern', version: '2.0.0' });
  server.registerTool(
    'deploy',
    { description: 'Deploy after the user confirms', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = ctx.mcpReq.inputResponses?.confirm as { action?: string; content?: { confirm?: boolean } } | undefined;
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
            }),
          },
        });
      }
      const yes = answer.action === 'accept' && answer.content?.confirm === true;
      return { content: [{ type: 'text', text: yes ? `deployed to ${env}` : `not deployed (${answer.action})` }] };
    },
  );
  server.registerTool(
    'summarize',
    { description: 'Summarize through the client model', inputSchema: z.object({ topic: z.string() }) },
    async ({ topic }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = ctx.mcpReq.inputResponses?.summary as { content?: { type?: string; text?: string } } | undefined;
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            summary: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: `Summarize ${topic}` } }],
              maxTokens: 50,
            }),
          },
        });
      }
      return { content: [{ type: 'text', text: `summary: ${answer.content?.text ?? '?'}` }] };
    },
  );
  server.registerTool(
    'where',
    { description: 'The client roots', inputSchema: z.object({}) },
    async (_args, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = ctx.mcpReq.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
      if (answer === undefined) return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return { content: [{ type: 'text', text: (answer.roots ?? []).map((root) => root.uri).join(',') }] };
    },
  );
  return server;
}

const config = (protocol?: ProtocolMode): ServerConfig => ({
  kind: 'stdio',
  name: 'modern',
  command: 'unused',
  args: [],
  env: {},
  approval: { tools: {} },
  ...(protocol ? { protocol } : {}),
});

/** A model that answers every prompt with `reply`. */
function fixedModel(reply: string): LLMClient {
  return {
    name: 'fixed:model',
    async *chat() {
      yield { type: 'text', text: reply };
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

describe('2026-07-28 servers (MRTR)', () => {
  const handles: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
  });

  /** A registry on a fresh in-process 2026 server. */
  async function connect(protocol: ProtocolMode | undefined, host: AgentHost, extra: { roots?: string[]; sampleReply?: string } = {}) {
    const [clientTx, serverTx] = InMemoryTransport.createLinkedPair();
    handles.push(serveStdio(() => modernServer(), { transport: serverTx }));
    const registry: McpRegistry = await createRegistry([config(protocol)], {
      host,
      transportFactory: () => clientTx,
      roots: extra.roots,
      sample: extra.sampleReply === undefined ? undefined : createSampleHandler(fixedModel(extra.sampleReply), host),
      connectTimeoutMs: 5000,
    });
    handles.push(registry);
    return registry;
  }

  it('pinned 2026-07-28 connects; an elicitation goes through host.elicit and the call is repeated', async () => {
    const elicited: { server: string; message: string }[] = [];
    const host: AgentHost = {
      elicit: async (server, params) => {
        elicited.push({ server, message: params.message });
        return { action: 'accept', content: { confirm: true } };
      },
    };
    const registry = await connect('2026-07-28', host);
    expect(registry.servers).toMatchObject([{ name: 'modern', status: 'connected', tools: 3, protocolVersion: '2026-07-28' }]);
    expect(text(await registry.callTool('modern__deploy', { env: 'prod' }))).toBe('deployed to prod');
    expect(elicited).toEqual([{ server: 'modern', message: 'Deploy to prod?' }]);
  });

  it('a declined form reaches the server as a decline', async () => {
    const registry = await connect('2026-07-28', { elicit: async () => ({ action: 'decline' }) });
    expect(text(await registry.callTool('modern__deploy', { env: 'prod' }))).toBe('not deployed (decline)');
  });

  it('sampling asks for approval, runs the model, and the answer goes back with the repeated call', async () => {
    const approvals: SamplingApprovalRequest[] = [];
    const shown: string[] = [];
    const host: AgentHost = {
      approveSampling: async (request) => {
        approvals.push(request);
        return true;
      },
      showSamplingResult: (_server, result) => shown.push(result),
    };
    const registry = await connect('auto', host, { sampleReply: 'short and sweet' });
    expect(registry.servers[0]?.protocolVersion).toBe('2026-07-28');
    expect(text(await registry.callTool('modern__summarize', { topic: 'MRTR' }))).toBe('summary: short and sweet');
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ server: 'modern', messages: [{ role: 'user', content: 'Summarize MRTR' }] });
    expect(shown).toEqual(['short and sweet']);
  });

  it('refused sampling fails the call instead of answering for the user', async () => {
    const registry = await connect('2026-07-28', { approveSampling: async () => false }, { sampleReply: 'never sent' });
    await expect(registry.callTool('modern__summarize', { topic: 'x' })).rejects.toMatchObject({
      kind: 'TOOL_EXECUTION_FAILED',
      message: expect.stringContaining('declined'),
    });
  });

  it('roots are listed from the configured directories', async () => {
    const dir = await realpath(tmpdir());
    const registry = await connect('2026-07-28', {}, { roots: [dir] });
    expect(text(await registry.callTool('modern__where', {}))).toBe(pathToFileURL(dir).href);
  });

  it('without a way to ask the user, the server is not offered elicitation and the call fails in one line', async () => {
    const registry = await connect('2026-07-28', {});
    const failure = await registry.callTool('modern__deploy', { env: 'prod' }).catch((error: Error) => error);
    expect(failure).toMatchObject({ kind: 'TOOL_EXECUTION_FAILED' });
    expect((failure as Error).message).not.toContain('\n');
  });

  it('legacy (the default) reaches a dual-era server over 2025-11-25, where the same tool asks by a request of its own', async () => {
    const elicited: string[] = [];
    const registry = await connect(undefined, {
      elicit: async (_server, params) => {
        elicited.push(params.message);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    expect(registry.servers[0]?.protocolVersion).toBe('2025-11-25');
    expect(text(await registry.callTool('modern__deploy', { env: 'staging' }))).toBe('deployed to staging');
    expect(elicited).toEqual(['Deploy to staging?']);
  });
});
