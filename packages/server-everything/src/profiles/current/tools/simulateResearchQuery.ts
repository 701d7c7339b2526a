import { defineTool, errorMessage, type RequestContext, registerTools, type ToolResult } from '@mcpkit/protocol-core';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import { isTerminal, type RunningTask, type TaskLayer, type TaskToolDefinition } from '@mcpkit/protocol-core/tasks-2025';
import type { CallToolResult, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { declaredCapabilities } from '../../../shared/clientInput.js';
import { type CurrentSession, sleep } from '../session.js';

const STAGES = ['Gathering sources', 'Analyzing content', 'Synthesizing findings', 'Generating report'] as const;

/** A task lives 5 minutes whatever the client asks (as the reference). */
const TASK_TTL_MS = 300_000;

const input = {
  topic: z.string().describe('The research topic to investigate'),
  ambiguous: z
    .boolean()
    .default(false)
    .describe('Simulate an ambiguous query that requires clarification (triggers input_required status)'),
};

function interpretationsFor(topic: string): { const: string; title: string }[] {
  if (topic.toLowerCase().includes('python')) {
    return [
      { const: 'programming', title: 'Python programming language' },
      { const: 'snake', title: 'Python snake species' },
      { const: 'comedy', title: 'Monty Python comedy group' },
    ];
  }
  return [
    { const: 'technical', title: 'Technical/scientific perspective' },
    { const: 'historical', title: 'Historical perspective' },
    { const: 'current', title: 'Current events/news perspective' },
  ];
}

/** The reference's report, character for character. */
export function researchReport(topic: string, clarification: string | undefined): CallToolResult {
  const title = clarification ? `${topic} (${clarification})` : topic;
  const elicitationFlow = clarification
    ? `**Elicitation Flow:**
When the query was ambiguous, the server sent an \`elicitation/create\` request
to the client. The task status changed to \`input_required\` while awaiting user input.
${
  clarification.includes('unavailable')
    ? '**Note:** Elicitation failed and a default interpretation was used.'
    : `After receiving clarification ("${clarification}"), the task resumed processing and completed.`
}
`
    : '';
  const report = `# Research Report: ${title}

## Research Parameters
- **Topic**: ${topic}
${clarification ? `- **Clarification**: ${clarification}` : ''}

## Synthesis
This research query was processed through ${STAGES.length} stages:
${STAGES.map((s, i) => `- Stage ${i + 1}: ${s} ✓`).join('\n')}

---

## About This Demo (SEP-1686: Tasks)

This tool demonstrates MCP's task-based execution pattern for long-running operations:

**Task Lifecycle Demonstrated:**
1. \`tools/call\` with \`task\` parameter → Server returns \`CreateTaskResult\` (not the final result)
2. Client polls \`tasks/get\` → Server returns current status and \`statusMessage\`
3. Status progressed: \`working\` → ${clarification ? '`input_required` → `working` → ' : ''}\`completed\`
4. Client calls \`tasks/result\` → Server returns this final result

${elicitationFlow}
**Key Concepts:**
- Tasks enable "call now, fetch later" patterns
- \`statusMessage\` provides human-readable progress updates
- Tasks have TTL (time-to-live) for automatic cleanup
- \`pollInterval\` suggests how often to check status
- Elicitation requests use \`relatedTask\` to queue via tasks/result (works on all transports)

*This is a simulated research report from the Everything MCP Server.*
`;
  return { content: [{ type: 'text', text: report }] };
}

/** The client's answer to the clarification (the fields the research reads). */
const ElicitAnswerSchema = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

/** A session whose server serves tasks (the `current` profile's): 2025-11-25's layer, or 2026-07-28's extension. */
export interface TaskSession extends CurrentSession {
  tasks?: TaskLayer;
  extension?: TasksExtension;
}

function clarificationRequest(topic: string) {
  return {
    method: 'elicitation/create',
    params: {
      message: `The research query "${topic}" could have multiple interpretations. Please clarify what you're looking for:`,
      requestedSchema: {
        type: 'object',
        properties: {
          interpretation: {
            type: 'string',
            title: 'Clarification',
            description: 'Which interpretation of the topic do you mean?',
            oneOf: interpretationsFor(topic),
          },
        },
        required: ['interpretation'],
      },
    },
  };
}

/** Asks the user which interpretation they mean; answers a default when that fails (and says so). */
async function clarify(topic: string, task: RunningTask, session: CurrentSession): Promise<string> {
  try {
    const answer = await task.requestInput(clarificationRequest(topic), ElicitAnswerSchema);
    if (answer.action === 'accept' && answer.content) {
      return (answer.content.interpretation as string | undefined) || 'User accepted without selection';
    }
    if (answer.action === 'decline') return 'User declined - using default interpretation';
    return 'User cancelled - using default interpretation';
  } catch (error) {
    if (session.closed.aborted || task.signal.aborted) throw error;
    session.logger.warn(`Elicitation failed for task ${task.taskId}: ${errorMessage(error)}`);
    return 'technical (default - elicitation unavailable)';
  }
}

/** Whether the task was cancelled (or is gone): the research stops there. */
const stopped = (task: RunningTask) => {
  const status = task.status();
  return status === undefined || isTerminal(status);
};

/**
 * The work of one task: four stages of `researchStageMs`, an `input_required` elicitation at the third when
 * ambiguous (queued for `tasks/result`, so the client receives it on any transport), then the report.
 * Stops when the task is cancelled or the session closes.
 */
async function research(topic: string, ambiguous: boolean, task: RunningTask, session: CurrentSession): Promise<CallToolResult> {
  const signal = AbortSignal.any([task.signal, session.closed]);
  let clarification: string | undefined;
  for (let i = 0; i < STAGES.length; i++) {
    if (stopped(task)) return researchReport(topic, clarification);
    await task.update('working', `${STAGES[i]}...`);
    if (i === 2 && ambiguous && !clarification) {
      await task.update('input_required', `Found multiple interpretations for "${topic}". Requesting clarification...`);
      clarification = await clarify(topic, task, session);
      if (stopped(task)) return researchReport(topic, clarification);
      await task.update('working', `Continuing with interpretation: "${clarification}"...`);
    }
    await sleep(session.config.scheduler, session.config.researchStageMs, signal);
  }
  return researchReport(topic, clarification);
}

function simulateResearchQuery(session: CurrentSession): TaskToolDefinition<CurrentSession, typeof input> {
  const title = 'Simulate Research Query';
  // Asked once, when the tool is registered (after `initialized`), as the reference.
  const clientSupportsElicitation = session.clientCapabilities().elicitation !== undefined;
  return {
    name: 'simulate-research-query',
    title,
    description:
      'Simulates a deep research operation that gathers, analyzes, and synthesizes information. ' +
      'Demonstrates MCP task-based operations with progress through multiple stages. ' +
      "If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification.",
    input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    // The client's requested ttl is ignored, as in the reference.
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: session.config.taskPollMs,
    run: ({ topic, ambiguous }, ctx, task) => research(topic, ambiguous && clientSupportsElicitation && task.canRequestInput, task, ctx),
  };
}

/**
 * Registers `simulate-research-query`, a tool that only runs as a task (`taskSupport: "required"`) for
 * 2025-11-25 clients. Registered after `initialized` for every 2025 client; it asks for a clarification only if
 * the client supports elicitation. A 2026-07-28 client (no 2025 tasks) finds it registered from the start and
 * gets the report of an inline run, without a clarification.
 */
export function registerSimulateResearchQuery(session: TaskSession): RegisteredTool {
  if (session.tasks) return session.tasks.registerTool(simulateResearchQuery(session), session);
  const [registered] = registerTools(session.server, session, [researchOnExtension(session)], {
    logger: session.logger,
    ...(session.extension ? { tasks: session.extension } : {}),
  });
  return registered as RegisteredTool;
}

/** A task never ends with the per-request server that started it (2026-07-28): only its own signal stops it. */
const NEVER = new AbortController().signal;

/** The task of the extension as the research sees one (`extra.task`), or an inline run without it. */
function runningFrom(extra: RequestContext): RunningTask {
  const task = extra.task;
  return {
    taskId: task?.taskId,
    signal: extra.mcpReq.signal,
    canRequestInput: task !== undefined,
    status: () => (extra.mcpReq.signal.aborted ? 'cancelled' : 'working'),
    update: async (_status, statusMessage) => {
      if (statusMessage) task?.progress(statusMessage);
    },
    requestInput: async (request, schema) => {
      if (!task) throw new Error('Input requests need a task');
      return schema.parse(await task.input(request));
    },
  };
}

/**
 * `simulate-research-query` for 2026-07-28 clients, on the tasks extension: a request that declares the extension
 * gets a task (stage names as its status message, the clarification as an `input_required` elicitation when
 * `ambiguous` and the request declares elicitation); one that does not gets the report of an inline run, as before.
 */
function researchOnExtension(session: CurrentSession) {
  const legacy = simulateResearchQuery(session);
  return defineTool({
    name: legacy.name,
    title: legacy.title,
    description: legacy.description,
    input,
    annotations: legacy.annotations,
    task: 'optional',
    handler: ({ topic, ambiguous }, ctx: CurrentSession, extra) => {
      const task = runningFrom(extra);
      const elicits = declaredCapabilities(ctx.server, extra).elicitation !== undefined;
      const session = extra.task ? { ...ctx, closed: NEVER } : ctx;
      return research(topic, ambiguous && elicits && task.canRequestInput, task, session) as Promise<ToolResult>;
    },
  });
}
