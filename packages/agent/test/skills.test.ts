/**
 * The skills extension (SEP-2640) from the client side, against servers built with SDK 2.4's
 * `@modelcontextprotocol/server/ext/skills` (in process, 2026-07-28): skills are listed at connect and
 * offered through the `skill` tool with their names and descriptions, a skill's files are read only when
 * the model calls it, and content that does not match the listed digest (or size) is refused.
 */
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, type SkillSource, SkillsExtension, skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, createOpenAIClient, createRegistry, type McpRegistry, type ServerConfig, SKILL_TOOL_NAME } from '../src/index.js';
import { startScriptedModel } from '../src/testing/index.js';

const SKILL_MD = `---
name: notes-basics
description: Search before you create a note; name notes by topic.
---

Always call search_notes first. Create a note only when nothing matches.
`;
const GUIDE = 'Naming: lower-case topic, then a dash, then a date.\n';

const config = (name: string): ServerConfig => ({
  kind: 'stdio',
  name,
  command: 'unused',
  args: [],
  env: {},
  approval: { tools: {} },
  protocol: '2026-07-28',
});

/** Counts the `resources/read` requests the server gets (skill files are read that way). */
function counting(transport: InMemoryTransport, reads: string[]): InMemoryTransport {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if ('method' in message && message.method === 'resources/read') reads.push(String((message.params as { uri?: unknown })?.uri));
    return send(message, options);
  };
  return transport;
}

/** A server serving one skill from memory files; `tamper` serves other bytes than the listing's digest covers. */
async function skillServer(tamper?: 'digest' | 'size'): Promise<() => McpServer> {
  const files = { 'notes-basics/SKILL.md': SKILL_MD, 'notes-basics/references/GUIDE.md': GUIDE };
  if (!tamper) {
    const catalog = await SkillsExtension.load(memorySkillFiles(files), { onWarning: () => {} });
    return () => {
      const server = new McpServer({ name: 'notes', version: '1.0.0' });
      catalog.attach(server);
      return server;
    };
  }
  const entry = await skillEntry('notes-basics', { 'SKILL.md': SKILL_MD, 'references/GUIDE.md': GUIDE });
  const served = tamper === 'digest' ? SKILL_MD.replace('first', 'never') : `${SKILL_MD}and more bytes than listed\n`;
  const source: SkillSource = {
    list: async () => ({ skills: [entry] }),
    get: async (uri) => (uri === entry.uri ? entry : undefined),
    read: async (uri) =>
      uri === entry.uri ? { text: served, mimeType: 'text/markdown' } : uri.endsWith('GUIDE.md') ? { text: GUIDE } : undefined,
  };
  const extension = new SkillsExtension({ source, onWarning: () => {} });
  return () => {
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    extension.attach(server);
    return server;
  };
}

describe('skills extension (client)', () => {
  const handles: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
  });

  async function connect(tamper?: 'digest' | 'size'): Promise<{ registry: McpRegistry; reads: string[] }> {
    const reads: string[] = [];
    const factory = await skillServer(tamper);
    const [clientTx, serverTx] = InMemoryTransport.createLinkedPair();
    counting(clientTx, reads);
    handles.push(serveStdio(factory, { transport: serverTx }));
    const registry = await createRegistry([config('notes')], { transportFactory: () => clientTx, connectTimeoutMs: 5000 });
    handles.push(registry);
    expect(registry.servers[0]).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' });
    return { registry, reads };
  }

  it('lists skills at connect without reading a file; the model loads one through the skill tool, verified', async () => {
    const { registry, reads } = await connect();
    expect(registry.listSkills?.()).toEqual([
      {
        name: 'notes-basics',
        server: 'notes',
        description: 'Search before you create a note; name notes by topic.',
        files: ['references/GUIDE.md'],
      },
    ]);
    expect(reads).toEqual([]);

    await using model = await startScriptedModel({
      turns: [{ toolCalls: [{ name: SKILL_TOOL_NAME, arguments: { name: 'notes-basics' } }] }, { text: 'ok' }],
    });
    const agent = createAgent({ llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 'm' }), router: registry });
    const result = await agent.run('take a note');
    // The first request offered the skill tool with the listing in its description, and nothing was read before the call.
    const first = model.requests[0]!.body.tools ?? [];
    const skillTool = first.find((tool: { function: { name: string } }) => tool.function.name === SKILL_TOOL_NAME);
    expect(skillTool?.function.description).toContain('- notes-basics (notes): Search before you create a note');
    expect(reads).toEqual(['skill://notes-basics/SKILL.md']);
    const loaded = result.outcomes[0]!;
    expect(loaded.status).toBe('ok');
    expect(loaded.text).toContain('Always call search_notes first.');
    expect(loaded.text).toContain('verified');
    expect(loaded.text).toContain('references/GUIDE.md');
    expect(loaded.text).not.toContain('description: Search before'); // the body, not the frontmatter
  });

  it('a referenced file is read only when asked for, and verified too', async () => {
    const { registry, reads } = await connect();
    expect(await registry.loadSkill?.('notes-basics', 'references/GUIDE.md')).toContain('Naming: lower-case topic');
    expect(reads).toEqual(['skill://notes-basics/references/GUIDE.md']);
    await expect(registry.loadSkill?.('notes-basics', 'secrets.md')).rejects.toMatchObject({ kind: 'RESOURCE_NOT_FOUND' });
    await expect(registry.loadSkill?.('nope')).rejects.toMatchObject({ kind: 'RESOURCE_NOT_FOUND' });
    expect(reads).toHaveLength(1);
  });

  it.each(['digest', 'size'] as const)('content with a wrong %s is refused and nothing of it reaches the model', async (tamper) => {
    const { registry, reads } = await connect(tamper);
    const failure = await registry.loadSkill?.('notes-basics').catch((error: Error) => error);
    expect(failure).toMatchObject({ kind: 'TOOL_EXECUTION_FAILED', details: { reason: tamper } });
    expect((failure as Error).message).toContain('was refused');
    expect((failure as Error).message).not.toContain('never');
    expect(reads).toEqual(['skill://notes-basics/SKILL.md']);
  });

  it('a server without skills offers no skill tool', async () => {
    const [clientTx, serverTx] = InMemoryTransport.createLinkedPair();
    handles.push(serveStdio(() => new McpServer({ name: 'plain', version: '1.0.0' }), { transport: serverTx }));
    const registry = await createRegistry([config('plain')], { transportFactory: () => clientTx, connectTimeoutMs: 5000 });
    handles.push(registry);
    expect(registry.listSkills?.()).toEqual([]);
  });
});
