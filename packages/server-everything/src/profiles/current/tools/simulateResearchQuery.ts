import { errorMessage } from '@mcpkit/protocol-core';
import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
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

export function interpretationsFor(topic: string): { const: string; title: string }[] {
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

interface Research {
  taskId: string;
  topic: string;
  /** Ask for a clarification (the client must support elicitation). */
  ambiguous: boolean;
  store: RequestTaskStore;
  session: CurrentSession;
}

/**
 * The background work of one task: four stages of `researchStageMs`, an `input_required` elicitation at
 * the third when ambiguous (queued with `relatedTask`, so the client receives it through `tasks/result`
 * on any transport), then the report. Stops when the task is cancelled or the session closes.
 */
async function research({ taskId, topic, ambiguous, store, session }: Research): Promise<void> {
  let clarification: string | undefined;
  for (let i = 0; i < STAGES.length; i++) {
    if (isTerminal((await store.getTask(taskId)).status)) return;
    await store.updateTaskStatus(taskId, 'working', `${STAGES[i]}...`);
    if (i === 2 && ambiguous && !clarification) {
      await store.updateTaskStatus(taskId, 'input_required', `Found multiple interpretations for "${topic}". Requesting clarification...`);
      try {
        // `relatedTask` queues the request for `tasks/result` (the SDK types leave it out of `extra.sendRequest`).
        const answer = await session.server.server.request(
          {
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
          },
          ElicitResultSchema,
          { relatedTask: { taskId } },
        );
        if (answer.action === 'accept' && answer.content) {
          clarification = (answer.content.interpretation as string | undefined) || 'User accepted without selection';
        } else if (answer.action === 'decline') {
          clarification = 'User declined - using default interpretation';
        } else {
          clarification = 'User cancelled - using default interpretation';
        }
      } catch (error) {
        if (session.closed.aborted) return;
        session.logger.warn(`Elicitation failed for task ${taskId}: ${errorMessage(error)}`);
        clarification = 'technical (default - elicitation unavailable)';
      }
      if (isTerminal((await store.getTask(taskId)).status)) return;
      await store.updateTaskStatus(taskId, 'working', `Continuing with interpretation: "${clarification}"...`);
    }
    await sleep(session.config.researchStageMs, session.closed);
  }
  await store.storeTaskResult(taskId, 'completed', researchReport(topic, clarification));
}

/**
 * Registers `simulate-research-query`, a tool that only runs as a task (`taskSupport: "required"`). Always
 * registered after `initialized`; it asks for a clarification only if the client supports elicitation.
 */
export function registerSimulateResearchQuery(session: CurrentSession): void {
  const { server, logger } = session;
  const clientSupportsElicitation = session.clientCapabilities().elicitation !== undefined;
  const title = 'Simulate Research Query';
  server.experimental.tasks.registerToolTask(
    'simulate-research-query',
    {
      title,
      description:
        'Simulates a deep research operation that gathers, analyzes, and synthesizes information. ' +
        'Demonstrates MCP task-based operations with progress through multiple stages. ' +
        "If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification.",
      inputSchema: input,
      execution: { taskSupport: 'required' },
      annotations: { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    {
      createTask: async ({ topic, ambiguous }, extra) => {
        // The client's requested ttl is ignored, as in the reference.
        const task = await extra.taskStore.createTask({ ttl: TASK_TTL_MS, pollInterval: session.config.taskPollMs });
        const { taskId } = task;
        const store = extra.taskStore;
        research({ taskId, topic, ambiguous: ambiguous && clientSupportsElicitation, store, session }).catch(async (error: unknown) => {
          if (session.closed.aborted) return;
          try {
            if (isTerminal((await store.getTask(taskId)).status)) return; // cancelled meanwhile
            logger.error(`Research task ${taskId} failed:`, error);
            await store.updateTaskStatus(taskId, 'failed', String(error));
          } catch (storeError) {
            logger.debug(`Research task ${taskId}: could not record its failure:`, storeError);
          }
        });
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
}
