import { createMcpServer, enableSubscriptions, registerPrompts, registerResources, registerTools } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import { createClientInput, createStateCodec } from '../../shared/clientInput.js';
import { VERSION } from '../../version.js';
import { prompts } from './prompts.js';
import { resources, watchedResourceUpdates } from './resources.js';
import { createSession } from './session.js';
import { tools } from './tools/index.js';

const INSTRUCTIONS = [
  'The surface the official MCP conformance suite (@modelcontextprotocol/conformance) expects of a server:',
  'test_* tools for every content type, logging, progress, errors, sampling, elicitation and stream resumption,',
  'json_schema_2020_12_tool, the tasks extension fixtures (greet, slow_compute, failing_job, protocol_error_job,',
  'confirm_delete, multi_input, test_tool_with_task), test:// resources (text, binary, a template, a subscribable resource), test_* prompts',
  'and completions. For testing MCP clients and SDKs; nothing here touches the network or the disk.',
].join(' ');

/** Tells `tasks` which of this profile's tools run only as tasks (its `preflight` answers -32021 for them). */
export function declareTaskTools(tasks: TasksExtension): void {
  for (const tool of tools) if (tool.task) tasks.declare(tool.name, tool.task);
  tasks.declare('test_tool_with_task', 'required');
}

/**
 * The `conformance` profile: every tool, resource, template, prompt and completion the server scenarios of
 * `@modelcontextprotocol/conformance` 0.2.0-alpha.12 call (both the 2025-11-25 and the 2026-07-28 requirement sets), with the texts they check. One server per session; all
 * state (log level, subscriptions, the watched resource's revision, timers) lives in it and stops with it.
 */
export function createConformanceServer(options: EverythingOptions): McpServer {
  const codec = createStateCodec(options.requestStateKey, options.spentRequestStates);
  const server = createMcpServer(
    { name: 'everything-server', version: VERSION, title: 'Everything (conformance)', instructions: INSTRUCTIONS },
    { requestState: { verify: codec.verify } },
  );
  // The process's tasks (the CLI makes one extension for every server); a server made alone gets its own.
  const tasks = options.tasks ?? new TasksExtension(createMemoryTaskStore(), { logger: options.logger });
  tasks.attach(server);
  declareTaskTools(tasks);
  const session = createSession(server, options, createClientInput(server, codec), tasks);
  const registerOptions = { logger: session.logger };
  registerTools(server, session, tools, { ...registerOptions, tasks });
  registerResources(server, session, resources);
  registerPrompts(server, session, prompts, registerOptions);
  const updates = watchedResourceUpdates(session, () => subscriptions);
  const subscriptions = enableSubscriptions(server, { ...updates, logger: session.logger });
  return server;
}
