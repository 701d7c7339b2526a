/**
 * Step 5: run the round's calls, one after another (calls can depend on each other's effects, and
 * approvals are asked one at a time). Every call ends in an outcome, whatever happens: malformed,
 * unknown tool, denied, timed out, cancelled, failed, or the server's result. Nothing here throws.
 * `tool_search` (when the tools are deferred) is answered here, without a server or an approval.
 */
import type { ApprovalDecision } from '../../approval.js';
import { errorMessage, isMcpError } from '../../errors.js';
import { capText, toolResultText } from '../../results.js';
import type { ParsedCall } from '../../textmode/parser.js';
import type { ToolOffer } from '../../tools/offer.js';
import { linkedAbort } from '../abort.js';
import type { AgentEvent, PipelineSettings, RunControl, ToolOutcome, ToolOutcomeStatus } from '../context.js';

function parseArguments(raw: string): { args: Record<string, unknown> } | { error: string } {
  if (raw.trim() === '') return { args: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { error: `the arguments are not valid JSON (${errorMessage(error)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: 'the arguments must be a JSON object' };
  }
  return { args: value as Record<string, unknown> };
}

function outcome(
  call: ParsedCall,
  status: ToolOutcomeStatus,
  text: string,
  started: number,
  extra: Partial<ToolOutcome> = {},
): ToolOutcome {
  const isError = status !== 'ok';
  return {
    call: { id: call.id, name: call.name, arguments: call.arguments },
    status,
    text,
    isError,
    durationMs: Date.now() - started,
    ...extra,
  };
}

/** One call, from its arguments to its outcome; yields the events on the way and returns the outcome. */
async function* runCall(
  settings: PipelineSettings,
  control: RunControl,
  offer: ToolOffer,
  call: ParsedCall,
): AsyncGenerator<AgentEvent, ToolOutcome> {
  const started = Date.now();
  if (control.cancelled) return outcome(call, 'cancelled', 'Not run: the user cancelled.', started);
  if (call.error) return outcome(call, 'invalid', `Error: your tool call could not be read: ${call.error}`, started);
  if (offer.isSearch(call.name)) {
    const parsed = parseArguments(call.arguments);
    if ('error' in parsed) return outcome(call, 'invalid', `Error: ${call.name}: ${parsed.error}.`, started);
    yield { type: 'tool_call', call };
    const { text, found } = offer.search(parsed.args);
    return outcome(call, text.startsWith('Error:') ? 'invalid' : 'ok', text, started, { raw: { found: found.map((t) => t.name) } });
  }
  if (offer.isSkill(call.name)) return yield* loadSkill(settings, control, call, started);
  const tool = settings.router.lookup(call.name);
  if (!tool) {
    const names = settings.router
      .listTools()
      .map((t) => t.name)
      .slice(0, 50);
    return outcome(call, 'unknown_tool', `Error: unknown tool "${call.name}". Available tools: ${names.join(', ') || '(none)'}.`, started);
  }
  const parsed = parseArguments(call.arguments);
  if ('error' in parsed) return outcome(call, 'invalid', `Error: ${tool.name}: ${parsed.error}.`, started, { tool });

  let decision: ApprovalDecision;
  try {
    decision = await settings.approval.decide(tool, parsed.args);
  } catch (error) {
    decision = { allowed: false, reason: `approval failed: ${errorMessage(error)}` };
  }
  yield { type: 'approval', call, tool, decision };
  if (!decision.allowed) return outcome(call, 'denied', `Error: not run: ${decision.reason}.`, started, { tool });

  yield { type: 'tool_call', call, tool };
  const step = linkedAbort(control.signal);
  const current = step.controller;
  control.current = current;
  try {
    const result = await settings.router.callTool(tool.name, parsed.args, {
      signal: current.signal,
      timeoutMs: settings.toolTimeoutMs,
    });
    const { text } = capText(toolResultText(result), settings.maxResultChars);
    return outcome(call, result.isError ? 'error' : 'ok', text, started, { tool, raw: result });
  } catch (error) {
    if (current.signal.aborted || isMcpError(error, 'CANCELLED')) {
      control.cancelled = true;
      yield { type: 'cancelled', during: 'tool' };
      return outcome(call, 'cancelled', 'Error: the user cancelled this call.', started, { tool });
    }
    const status: ToolOutcomeStatus = isMcpError(error, 'TOOL_TIMEOUT')
      ? 'timeout'
      : isMcpError(error, 'TOOL_NOT_FOUND')
        ? 'unknown_tool'
        : 'error';
    return outcome(call, status, `Error: ${errorMessage(error)}`, started, { tool });
  } finally {
    step.release();
    control.current = undefined;
  }
}

/** The `skill` tool: the skill read (verified) now, because the model asked; no server tool, no approval. */
async function* loadSkill(
  settings: PipelineSettings,
  control: RunControl,
  call: ParsedCall,
  started: number,
): AsyncGenerator<AgentEvent, ToolOutcome> {
  const parsed = parseArguments(call.arguments);
  if ('error' in parsed) return outcome(call, 'invalid', `Error: ${call.name}: ${parsed.error}.`, started);
  const { name, file } = parsed.args;
  if (typeof name !== 'string' || name.trim() === '') {
    return outcome(call, 'invalid', 'Error: skill needs a "name" (one of the skills listed in its description).', started);
  }
  if (file !== undefined && typeof file !== 'string') return outcome(call, 'invalid', 'Error: skill: "file" must be a string.', started);
  yield { type: 'tool_call', call };
  const step = linkedAbort(control.signal);
  control.current = step.controller;
  try {
    const text = await settings.router.loadSkill!(name.trim(), file, { signal: step.controller.signal });
    return outcome(call, 'ok', capText(text, settings.maxResultChars).text, started);
  } catch (error) {
    if (step.controller.signal.aborted) {
      control.cancelled = true;
      yield { type: 'cancelled', during: 'tool' };
      return outcome(call, 'cancelled', 'Error: the user cancelled this call.', started);
    }
    return outcome(call, isMcpError(error, 'RESOURCE_NOT_FOUND') ? 'invalid' : 'error', `Error: ${errorMessage(error)}`, started);
  } finally {
    step.release();
    control.current = undefined;
  }
}

/** Every call of the round, in order; yields each call's events and returns the outcomes. */
export async function* execute(
  settings: PipelineSettings,
  control: RunControl,
  offer: ToolOffer,
  calls: readonly ParsedCall[],
): AsyncGenerator<AgentEvent, ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) {
    const result = yield* runCall(settings, control, offer, call);
    outcomes.push(result);
    yield { type: 'tool_result', outcome: result };
  }
  return outcomes;
}
