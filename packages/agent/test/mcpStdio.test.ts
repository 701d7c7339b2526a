import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CreateMessageResult, ElicitResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AgentHost, createRegistry, McpError, type McpRegistry, type SampleHandler, type StdioServerConfig } from '../src/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/stdioServer.mjs', import.meta.url));

function fixture(name: string, extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
  return { kind: 'stdio', name, command: process.execPath, args: [FIXTURE], env: {}, approval: { tools: {} }, ...extra };
}

function text(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
}

function json(result: { content?: unknown }): Record<string, unknown> {
  return JSON.parse(text(result));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A host that records what it is told; `elicit` answers with `elicitReply`. */
function recordingHost() {
  const record = {
    notices: [] as string[],
    logs: [] as { server: string; level: LoggingLevel; data: unknown }[],
    stderr: [] as string[],
    progress: [] as string[],
    elicited: [] as { server: string; message: string }[],
    elicitReply: { action: 'decline' } as ElicitResult,
  };
  const host: AgentHost = {
    onNotice: (t) => record.notices.push(t),
    onLog: (server, level, data) => record.logs.push({ server, level, data }),
    onServerStderr: (server, line) => record.stderr.push(`${server}: ${line}`),
    onProgress: (server, tool, p) => record.progress.push(`${server}/${tool} ${p.progress}/${p.total}`),
    elicit: async (server, params) => {
      record.elicited.push({ server, message: params.message });
      return record.elicitReply;
    },
  };
  return { host, record };
}

describe('stdio servers: the client features', () => {
  const { host, record } = recordingHost();
  let registry: McpRegistry;
  let workDir: string;
  let rootA: string;
  let sampleReply: () => Promise<CreateMessageResult>;
  const sampled: { server: string; text: string }[] = [];
  const sample: SampleHandler = async (server, params) => {
    const content = params.messages[0]?.content;
    sampled.push({ server, text: content && 'text' in content ? String(content.text) : '' });
    return sampleReply();
  };

  beforeAll(async () => {
    workDir = await realpath(await mkdtemp(join(tmpdir(), 'mcpkit-stdio-')));
    rootA = join(workDir, 'project-a');
    process.env.MCPKIT_TEST_PARENT_ONLY = 'should not reach the child';
    registry = await createRegistry([fixture('fx', { env: { FIXTURE_GREETING: 'hello' }, cwd: workDir })], {
      host,
      sample,
      roots: [rootA],
      clientVersion: '0.0.1-test',
    });
  });

  afterAll(async () => {
    delete process.env.MCPKIT_TEST_PARENT_ONLY;
    await registry?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('connects, calls a tool, gives the child its env and cwd (not the whole parent env), forwards stderr', async () => {
    expect(registry.servers).toEqual([
      { name: 'fx', status: 'connected', tools: 9, serverInfo: { name: 'fixture', version: '1.2.3' }, protocolVersion: '2025-11-25' },
    ]);
    expect(registry.lookup('fx__echo')).toMatchObject({ server: 'fx', tool: 'echo', description: 'Echo the text back' });
    expect(text(await registry.callTool('fx__echo', { text: 'ping' }))).toBe('ping');
    const where = json(await registry.callTool('fx__whereami', {}));
    expect(where).toMatchObject({ cwd: workDir, greeting: 'hello', path: process.env.PATH ?? null, parentOnly: null });
    await vi.waitFor(() => expect(record.stderr).toContain('fx: fixture: ready'));
  });

  it('reports progress, and progress keeps a short timeout from firing', async () => {
    const seen: { progress: number; total?: number; message?: string }[] = [];
    record.progress.length = 0;
    const started = Date.now();
    const result = await registry.callTool('fx__slow', { steps: 16, intervalMs: 50 }, { timeoutMs: 300, onProgress: (p) => seen.push(p) });
    expect(text(result)).toBe('counted to 16');
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    // The SDK may drop the last one: it handles a response at once but a notification a microtask
    // later, so progress that arrives in the same chunk as the result finds its handler gone.
    expect(seen.length).toBeGreaterThanOrEqual(14);
    expect(seen.map((p) => p.progress)).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    expect(seen[0]).toEqual({ progress: 1, total: 16, message: 'step 1' });
    expect(record.progress).toHaveLength(seen.length);
    expect(record.progress[0]).toBe('fx/slow 1/16');
  });

  it('times out a call with no reply and no progress: TOOL_TIMEOUT, and the server is told', async () => {
    const error = await registry.callTool('fx__slow', { steps: 2, intervalMs: 1000 }, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ kind: 'TOOL_TIMEOUT', message: 'fx__slow: no reply within 0.15 s' });
    await vi.waitFor(() => expect(record.logs.map((l) => l.data)).toContain('slow: cancelled at step 0'));
  });

  it('an abort rejects with CANCELLED and the server sees notifications/cancelled', async () => {
    const controller = new AbortController();
    const call = registry.callTool(
      'fx__slow',
      { steps: 100, intervalMs: 50 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    await expect(call).rejects.toMatchObject({ kind: 'CANCELLED', message: 'fx__slow: cancelled' });
    await vi.waitFor(() => expect(record.logs.some((l) => /^slow: cancelled at step [1-9]/.test(String(l.data)))).toBe(true));
    // An already aborted signal does not even send the request.
    await expect(registry.callTool('fx__echo', { text: 'x' }, { signal: controller.signal })).rejects.toMatchObject({ kind: 'CANCELLED' });
  });

  it('answers elicitation through host.elicit: accept and decline', async () => {
    record.elicitReply = { action: 'accept', content: { name: 'Ada' } };
    expect(json(await registry.callTool('fx__ask', {}))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    record.elicitReply = { action: 'decline' };
    expect(json(await registry.callTool('fx__ask', {}))).toEqual({ action: 'decline' });
    expect(record.elicited).toEqual([
      { server: 'fx', message: 'What is your name?' },
      { server: 'fx', message: 'What is your name?' },
    ]);
  });

  it('answers sampling through the sample handler; a refusal reaches the server as an error', async () => {
    sampleReply = async () => ({ role: 'assistant', content: { type: 'text', text: 'Hello from the model' }, model: 'scripted' });
    expect(json(await registry.callTool('fx__sample', {}))).toMatchObject({ content: { text: 'Hello from the model' }, model: 'scripted' });
    expect(sampled).toEqual([{ server: 'fx', text: 'Say hello' }]);
    sampleReply = async () => {
      throw new McpError('PERMISSION_DENIED', 'The user declined the sampling request.');
    };
    const refused = await registry.callTool('fx__sample', {});
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('sampling failed: MCP error -1: Sampling failed: The user declined the sampling request.');
  });

  it('lists roots as file URIs, and setRoots tells the server', async () => {
    expect(json(await registry.callTool('fx__roots', {}))).toEqual({ roots: [{ uri: pathToFileURL(rootA).href, name: 'project-a' }] });
    const rootB = join(workDir, 'b dir');
    await registry.setRoots([rootA, rootB]);
    await vi.waitFor(() => expect(record.logs.map((l) => l.data)).toContain('roots changed'));
    const { roots } = json(await registry.callTool('fx__roots', {})) as { roots: { uri: string; name: string }[] };
    expect(roots.map((r) => r.name)).toEqual(['project-a', basename(rootB)]);
    expect(roots[1]?.uri).toBe(pathToFileURL(rootB).href);
    expect(roots[1]?.uri).toContain('b%20dir');
  });

  it('passes log messages to host.onLog with the server name and level', async () => {
    await registry.callTool('fx__log', {});
    await vi.waitFor(() => expect(record.logs).toContainEqual({ server: 'fx', level: 'warning', data: { note: 'hello from the log' } }));
  });

  it('re-lists tools on tools/list_changed and tells the host', async () => {
    expect(registry.lookup('fx__added')).toBeUndefined();
    await registry.callTool('fx__add_tool', {});
    await vi.waitFor(() => expect(record.notices).toContain('fx: tools changed (10 tools)'));
    expect(registry.lookup('fx__added')).toMatchObject({ tool: 'added', description: 'A tool added at run time' });
    expect(registry.servers[0]?.tools).toBe(10);
    expect(text(await registry.callTool('fx__added', {}))).toBe('added works');
  });
});

describe('stdio servers: failures and shutdown', () => {
  const { host, record } = recordingHost();
  let registry: McpRegistry;

  beforeAll(async () => {
    registry = await createRegistry(
      [
        fixture('missing', { command: 'mcpkit-no-such-command-xyz', args: [] }),
        fixture('early', { args: [FIXTURE, '--fail-at-start', 'config error: MEMORY_PATH is not writable'] }),
        fixture('nowhere', { cwd: '/nonexistent/mcpkit-dir' }),
        fixture('good', { timeoutMs: 100 }),
        fixture('doomed'),
      ],
      { host },
    );
  });

  afterAll(async () => {
    await registry?.close();
  });

  it('reports servers that cannot start, each in one line, and the others work', async () => {
    expect(registry.servers.map((s) => [s.name, s.status, s.error])).toEqual([
      ['missing', 'failed', 'missing: could not start "mcpkit-no-such-command-xyz": not found (ENOENT)'],
      ['early', 'failed', `early: could not start "${process.execPath}": exited during startup: config error: MEMORY_PATH is not writable`],
      ['nowhere', 'failed', `nowhere: could not start "${process.execPath}": the working directory /nonexistent/mcpkit-dir does not exist`],
      ['good', 'connected', undefined],
      ['doomed', 'connected', undefined],
    ]);
    // Servers start in parallel: notices come in the order they fail.
    expect([...record.notices].sort()).toEqual(registry.servers.flatMap((s) => s.error ?? []).sort());
    expect(record.stderr).toContain('early: config error: MEMORY_PATH is not writable');
    expect(registry.listTools().some((t) => t.server === 'missing' || t.server === 'early')).toBe(false);
    expect(text(await registry.callTool('good__echo', { text: 'still here' }))).toBe('still here');
  });

  it("the server's configured timeout wins over the caller's", async () => {
    await expect(registry.callTool('good__slow', { steps: 1, intervalMs: 1000 }, { timeoutMs: 10_000 })).rejects.toMatchObject({
      kind: 'TOOL_TIMEOUT',
      message: 'good__slow: no reply within 0.1 s',
    });
  });

  it('a server that crashes: the call fails with "not running", the host is told, later calls fail too', async () => {
    const { pid } = json(await registry.callTool('doomed__whereami', {})) as { pid: number };
    await expect(registry.callTool('doomed__crash', {})).rejects.toMatchObject({
      kind: 'TOOL_EXECUTION_FAILED',
      message: 'doomed is not running',
    });
    await vi.waitFor(() => expect(record.notices).toContain('doomed stopped (last stderr line: fixture: crashing on purpose)'));
    expect(registry.servers.find((s) => s.name === 'doomed')).toMatchObject({
      status: 'failed',
      error: 'doomed stopped (last stderr line: fixture: crashing on purpose)',
    });
    await expect(registry.callTool('doomed__echo', { text: 'x' })).rejects.toMatchObject({
      kind: 'TOOL_EXECUTION_FAILED',
      message: 'doomed is not running',
    });
    expect(isRunning(pid)).toBe(false);
  });

  it('close() ends every child process', async () => {
    const { pid } = json(await registry.callTool('good__whereami', {})) as { pid: number };
    expect(isRunning(pid)).toBe(true);
    await registry.close();
    expect(isRunning(pid)).toBe(false);
    expect(record.notices.filter((n) => n.startsWith('good'))).toEqual([]);
  });
});
