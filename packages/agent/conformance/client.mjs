#!/usr/bin/env node
// The agent's MCP layer as a client under the official conformance suite (@modelcontextprotocol/conformance):
//
//   conformance client --command "node packages/agent/conformance/client.mjs" --scenario <name>
//
// The suite appends the URL of its scenario server and names the scenario in MCP_CONFORMANCE_SCENARIO (and the
// protocol revision in MCP_CONFORMANCE_PROTOCOL_VERSION, the tool calls to make in MCP_CONFORMANCE_CONTEXT). This
// client connects through `createRegistry` (the same code path as `mcp-agent`), with a host that accepts every form,
// and does what the scenario checks: list tools, call them, read resources and prompts, answer MRTR input requests,
// list skills without reading them, and refuse a skill whose file fails verification (sep-2640-client-*).
// The `auth/*` scenarios log in first through the agent's OAuth code (see auth.mjs), then call the server's tool.
// Runs the BUILT package (dist/): build it first. Exits 1 on failure (the suite expects that in its negative auth
// scenarios: a refused resource, issuer or `iss`); stderr only.
import * as agent from '../dist/index.js';
import { connectWithLogin, oauthFor } from './auth.mjs';

/** Mock servers of these scenarios answer neither `server/discover` nor a 2026 `initialize`: adopt a known verdict. */
const NO_DISCOVER = new Set(['http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers', 'sep-2322-client-request-state']);
const NAME = 'conf';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!url) {
  process.stderr.write('usage: client.mjs <server-url> (with MCP_CONFORMANCE_SCENARIO set)\n');
  process.exit(2);
}
const modern = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === '2026-07-28' || NO_DISCOVER.has(scenario);
const log = (text) => process.stderr.write(`[agent-conformance] ${text}\n`);

/** A modern verdict for a mock without `server/discover`: the 2026-07-28 revision and a read surface. */
const priorDiscovery = () => ({
  kind: 'modern',
  discover: {
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-mock', version: '1.0.0' } },
  },
});

/** A host that says yes: every form is accepted with `confirmed: true`, every sampling request approved. */
const host = {
  onNotice: (text) => log(`notice: ${text}`),
  elicit: async (_server, params) => {
    log(`form: ${params.message}`);
    return { action: 'accept', content: { confirmed: true } };
  },
  approveSampling: async () => true,
};
const sample = async () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'conformance', stopReason: 'endTurn' });

const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const authScenario = scenario.startsWith('auth/');
const oauth = authScenario ? oauthFor(scenario, context) : undefined;
const server = {
  kind: 'http',
  name: NAME,
  url,
  headers: {},
  transport: 'streamable-http',
  approval: { tools: {} },
  protocol: modern ? 'auto' : 'legacy',
  ...(oauth ? { oauth } : {}),
};
const options = {
  host,
  sample,
  roots: [process.cwd()],
  connectTimeoutMs: 20_000,
  ...(NO_DISCOVER.has(scenario) ? { priorDiscovery } : {}),
};
/** `{ registry, close }`: auth scenarios log in as needed (auth.mjs); the others connect once. */
async function connect() {
  if (authScenario) return connectWithLogin(agent, server, options, log);
  const registry = await agent.createRegistry([server], options);
  return { registry, close: () => registry.close() };
}

let connection;
try {
  connection = await connect();
} catch (error) {
  log(`failed: ${error?.message ?? error}`);
  process.exit(1);
}
const { registry } = connection;

/** Calls `tool` (the server's own name); a failure is logged, not fatal, when `tolerate` is set. */
async function call(tool, args, tolerate = false) {
  try {
    const entry = registry.listTools().find((candidate) => candidate.tool === tool);
    if (!entry) throw new Error(`no tool ${tool}`);
    const result = await registry.callTool(entry.name, args);
    log(`${tool}: ${JSON.stringify(result.content ?? result).slice(0, 200)}`);
  } catch (error) {
    if (!tolerate) throw error;
    log(`${tool} failed (expected here): ${error.message}`);
  }
}

const tools = () => registry.listTools().map((entry) => entry.tool);

try {
  const status = registry.servers[0];
  if (status?.status !== 'connected') throw new Error(status?.error ?? 'not connected');
  log(`connected: protocol ${status.protocolVersion}, tools: ${tools().join(', ')}`);
  switch (scenario) {
    case 'tools_call':
      if (tools().includes('add_numbers')) await call('add_numbers', { a: 5, b: 3 });
      break;
    case 'http-standard-headers': {
      const client = registry.client(NAME);
      const [tool] = tools();
      if (tool) await call(tool, {});
      const { resources } = await client.listResources();
      if (resources[0]) await client.readResource({ uri: resources[0].uri });
      const { prompts } = await client.listPrompts();
      if (prompts[0]) await client.getPrompt({ name: prompts[0].name, arguments: {} });
      break;
    }
    case 'http-custom-headers':
      for (const { name, arguments: args } of context.toolCalls ?? []) await call(name, args);
      break;
    case 'http-invalid-tool-headers':
      for (const tool of tools()) await call(tool, { region: 'us-west1' }, true);
      break;
    case 'sep-2322-client-request-state':
      await call('test_mrtr_echo_state', {});
      await call('test_mrtr_no_state', {});
      await call('test_mrtr_unrelated', {});
      // No resultType from a 2026 server is a protocol violation: the client must not retry.
      await call('test_mrtr_no_result_type', {}, true);
      break;
    case 'sep-2640-client-no-prefetch':
      // Connecting lists the skills (skills/list); no model asked for one, so no skill file may be read.
      log(`skills: ${(registry.listSkills?.() ?? []).map((skill) => skill.name).join(', ') || '(none)'}`);
      break;
    case 'sep-2640-client-verify-digest':
    case 'sep-2640-client-verify-size':
    case 'sep-2640-client-verify-frontmatter': {
      // As if the model called the skill tool: the tampered SKILL.md must be refused, and nothing past it read.
      const [skill] = registry.listSkills?.() ?? [];
      if (!skill) throw new Error('the server listed no skill');
      try {
        const text = await registry.loadSkill(skill.name);
        throw new Error(`the tampered skill was loaded (${text.length} characters)`);
      } catch (error) {
        if (error?.kind !== 'TOOL_EXECUTION_FAILED' || !String(error.message).includes('was refused')) throw error;
        log(`refused as it should be: ${error.message}`);
      }
      break;
    }
    default:
      // Every auth scenario's server has one tool, `test-tool` (step-up scenarios gate it on a wider scope).
      if (authScenario) await call('test-tool', {});
      // request-metadata, json-schema-ref-no-deref and others: connecting and listing tools is the test.
      break;
  }
} catch (error) {
  log(`failed: ${error?.message ?? error}`);
  process.exitCode = 1;
} finally {
  await connection.close();
}
