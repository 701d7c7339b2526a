import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createOpenAIClient,
  createRegistry,
  createToolOffer,
  deferThreshold,
  estimateTokens,
  estimateToolTokens,
  type McpRegistry,
  parseServersConfig,
  type ServerConfig,
  searchTools,
  TOOL_SEARCH_NAME,
  type ToolEntry,
  type ToolRouter,
} from '../src/index.js';
import { startScriptedModel } from '../src/testing/index.js';

const require = createRequire(import.meta.url);
/** The built bin of a workspace server (a devDependency), run with this Node. */
function serverBin(pkg: string, bin: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', bin);
}

function entry(server: string, tool: string, description: string, extra: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name: `${server}__${tool}`,
    server,
    tool,
    description,
    inputSchema: { type: 'object', properties: { value: { type: 'string', description: 'x'.repeat(200) } } },
    ...extra,
  };
}

function staticRouter(tools: ToolEntry[]): ToolRouter {
  return {
    listTools: () => tools,
    lookup: (name) => tools.find((t) => t.name === name),
    callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  };
}

describe('token estimate', () => {
  it('is one token per 4 characters of the tools as the request carries them', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
    const spec = { name: 'a', description: 'b', inputSchema: { type: 'object' } };
    const wire = JSON.stringify([{ type: 'function', function: { name: 'a', description: 'b', parameters: { type: 'object' } } }]);
    expect(estimateToolTokens([spec])).toBe(Math.ceil(wire.length / 4));
    expect(estimateToolTokens([])).toBe(0);
  });

  it('the default threshold is 5% of a 32,768-token window (the 2026 guidance: 1-5%); both are configurable; false turns deferral off', () => {
    expect(deferThreshold(undefined)).toBe(1638);
    expect(deferThreshold({ contextWindowTokens: 128_000 })).toBe(6_400);
    expect(deferThreshold({ contextWindowTokens: 128_000, thresholdTokens: 500 })).toBe(500);
    expect(deferThreshold(false)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('searchTools', () => {
  const tools = [
    entry('memory', 'create_entities', 'Create multiple new entities in the knowledge graph'),
    entry('memory', 'search_nodes', 'Search for nodes in the knowledge graph based on a query'),
    entry('git', 'git_log', 'Shows the commit logs'),
    entry('web', 'fetch', 'Fetches a URL from the internet', { title: 'Fetch a web page' }),
  ];

  it('ranks name matches over title and description matches, and finds an exact name', () => {
    expect(searchTools(tools, 'create entities', 5).map((t) => t.name)).toEqual(['memory__create_entities']);
    expect(searchTools(tools, 'knowledge graph search', 5).map((t) => t.name)).toEqual(['memory__search_nodes', 'memory__create_entities']);
    expect(searchTools(tools, 'web page', 5).map((t) => t.name)).toEqual(['web__fetch']);
    expect(searchTools(tools, 'git__git_log', 5).map((t) => t.name)).toEqual(['git__git_log']);
    expect(searchTools(tools, 'commitLogs', 5).map((t) => t.name)).toEqual(['git__git_log']);
    expect(searchTools(tools, 'weather', 5)).toEqual([]);
    expect(searchTools(tools, 'graph', 1)).toHaveLength(1);
  });
});

describe('createToolOffer', () => {
  const many = Array.from({ length: 40 }, (_, i) => entry('gen', `tool_${i}`, `Generated tool number ${i}`));
  const pinned = entry('pinned', 'always', 'A tool of a server configured "defer": false', { defer: false });

  it('offers every tool under the threshold, and tool_search + the "defer": false tools over it', () => {
    const router = staticRouter([...many, pinned]);
    const all = createToolOffer(router, { thresholdTokens: 1_000_000 }, []).next();
    expect(all.deferred).toBe(false);
    expect(all.tools).toHaveLength(41);
    const offered = createToolOffer(router, { thresholdTokens: 500 }, []).next();
    expect(offered.deferred).toBe(true);
    expect(offered.tools.map((t) => t.name)).toEqual([TOOL_SEARCH_NAME, 'pinned__always']);
    expect(offered.tools[0]?.description).toContain('40 more tools are available');
    expect(offered.tools[0]?.description).toContain('gen (40), pinned (1)');
    expect(offered.allTokens).toBe(estimateToolTokens(all.tools));
    expect(createToolOffer(router, false, []).next().deferred).toBe(false);
  });

  it('a search loads what it found for the next step; tools the conversation already called stay loaded', () => {
    const router = staticRouter(many);
    const offer = createToolOffer(router, { thresholdTokens: 500 }, [
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'gen__tool_7', arguments: '{}' }] },
    ]);
    expect(offer.next().tools.map((t) => t.name)).toEqual([TOOL_SEARCH_NAME, 'gen__tool_7']);
    expect(offer.isSearch(TOOL_SEARCH_NAME)).toBe(true);
    const result = offer.search({ query: 'tool_12' });
    expect(result.found.map((t) => t.name)).toEqual(['gen__tool_12']);
    expect(result.text).toBe('1 tool(s) found; you can call them in your next step:\n- gen__tool_12: Generated tool number 12');
    expect(offer.next().tools.map((t) => t.name)).toEqual([TOOL_SEARCH_NAME, 'gen__tool_7', 'gen__tool_12']);
    expect(offer.search({ query: 'generated', limit: 3 }).found).toHaveLength(3);
    expect(offer.search({ query: 'weather' }).text).toBe(
      'No tool matches "weather". Try other words; the tools come from these servers: gen.',
    );
    expect(offer.search({}).text).toMatch(/^Error: tool_search needs a "query"/);
    expect(createToolOffer(router, false, []).isSearch(TOOL_SEARCH_NAME)).toBe(false);
  });

  it('"defer": false in the config reaches the config entry; other values are refused', () => {
    const parse = (entryJson: Record<string, unknown>) =>
      parseServersConfig({ mcpServers: { s: { command: 'x', ...entryJson } } }, { baseDir: '/', env: {} });
    expect(parse({ defer: false })[0]).toMatchObject({ name: 's', defer: false });
    expect(parse({ defer: true })[0]).not.toHaveProperty('defer');
    expect(() => parse({ defer: 'no' })).toThrow('mcpServers.s.defer: expected true or false, got string "no"');
  });
});

describe('tool_search end to end: the scripted model, the memory and everything servers over stdio', () => {
  let dir: string;
  let configs: ServerConfig[];
  let registry: McpRegistry;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpkit-toolsearch-'));
    configs = parseServersConfig(
      {
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [serverBin('@mcpkit/server-memory', 'mcp-server-memory.js')],
            env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
          },
          everything: { command: process.execPath, args: [serverBin('@mcpkit/server-everything', 'mcp-server-everything.js')] },
        },
      },
      { baseDir: dir, env: {} },
    );
    registry = await createRegistry(configs);
    expect(registry.servers.map((s) => [s.name, s.status])).toEqual([
      ['memory', 'connected'],
      ['everything', 'connected'],
    ]);
  }, 30_000);

  afterAll(async () => {
    await registry?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the model searches, the found tool is loaded for the next step, the model calls it, the server runs it', async () => {
    await using model = await startScriptedModel({
      turns: [
        { toolCalls: [{ name: TOOL_SEARCH_NAME, arguments: { query: 'create entities knowledge graph' } }] },
        {
          toolCalls: [
            {
              name: 'memory__create_entities',
              arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
            },
          ],
        },
        { text: 'Ada is in the graph now.' },
      ],
    });
    const all = registry.listTools();
    const allTokens = estimateToolTokens(all.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })));
    const agent = createAgent({
      llm: createOpenAIClient({ baseUrl: model.baseUrl, model: 'scripted' }),
      router: registry,
      approval: { allowAll: true },
      toolSearch: { thresholdTokens: Math.floor(allTokens / 2) },
    });
    const result = await agent.run('Remember that Ada wrote the first program.');
    expect(result.text).toBe('Ada is in the graph now.');

    const [first, second, third] = model.requests;
    expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([TOOL_SEARCH_NAME]);
    expect(estimateTokens(JSON.stringify(first?.body.tools))).toBeLessThan(allTokens / 5);
    const loaded = second?.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(loaded[0]).toBe(TOOL_SEARCH_NAME);
    expect(loaded).toContain('memory__create_entities');
    const schema = second?.body.tools.find((t: { function: { name: string } }) => t.function.name === 'memory__create_entities');
    expect(schema.function.parameters.properties).toHaveProperty('entities');
    expect(loaded.length).toBeLessThanOrEqual(6);
    expect(third?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(loaded);

    expect(result.outcomes.map((o) => [o.call.name, o.status])).toEqual([
      [TOOL_SEARCH_NAME, 'ok'],
      ['memory__create_entities', 'ok'],
    ]);
    expect(result.outcomes[0]?.text).toContain('- memory__create_entities');
    const graph = await registry.callTool('memory__read_graph', {});
    expect(JSON.stringify(graph)).toContain('wrote the first program');
  }, 30_000);

  it('under the threshold every tool is offered and tool_search is not; "defer": false keeps a server loaded', async () => {
    await using model = await startScriptedModel({ turns: [{ text: 'hi' }], onExhausted: 'repeat-last' });
    const llm = createOpenAIClient({ baseUrl: model.baseUrl, model: 'scripted' });
    await createAgent({ llm, router: registry, toolSearch: false }).run('hi');
    const names = (i: number): string[] => model.requests[i]?.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names(0)).toHaveLength(registry.listTools().length);
    expect(names(0)).not.toContain(TOOL_SEARCH_NAME);

    await using pinned = await createRegistry(configs.map((c) => (c.name === 'memory' ? { ...c, defer: false as const } : c)));
    await createAgent({ llm, router: pinned, toolSearch: { thresholdTokens: 100 } }).run('hi');
    const memoryTools = pinned
      .listTools()
      .filter((t) => t.server === 'memory')
      .map((t) => t.name);
    expect(memoryTools.length).toBeGreaterThan(3);
    expect(names(1)).toEqual([TOOL_SEARCH_NAME, ...memoryTools]);
  }, 30_000);
});
