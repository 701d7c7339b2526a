/**
 * Who may call which tool. Decided per call, in this order:
 *
 * 1. the config allows or denies this tool (`approval.tools.<tool>`, else the server's `approval.default`);
 *    an explicit `deny` stays a denial even with `--yes`;
 * 2. `--yes`, or an earlier "always" answer for this tool: allowed;
 * 3. the config says `ask`: asked;
 * 4. the tool says it only reads (`readOnlyHint: true` and not `destructiveHint: true`): allowed,
 *    unless `autoAllowReadOnly` is off, for the agent or in the server's policy (either one off wins:
 *    the hint is the server's word, not a guarantee);
 * 5. otherwise ask. Asking needs a host that can ask (a terminal); without one the call is denied —
 *    fail closed, and the model is told why.
 *
 * An "always" answer holds for that tool for the rest of the agent's life.
 */
import type { AgentHost } from './host.js';
import type { ApprovalMode, ApprovalPolicy, ToolEntry } from './mcp/types.js';

export interface ApprovalOptions {
  /** `--yes`: allow every call the config does not deny. */
  allowAll?: boolean;
  /** Allow tools annotated read-only without asking. Default true; false wins over a server's policy. */
  autoAllowReadOnly?: boolean;
  /** The config's policy per server name (its `autoAllowReadOnly: false` asks for that server's read-only tools). */
  policies?: ReadonlyMap<string, Pick<ApprovalPolicy, 'default' | 'tools' | 'autoAllowReadOnly'>>;
}

export type ApprovalDecision = { allowed: true } | { allowed: false; reason: string };

export interface ApprovalGate {
  /** The mode the rules give, before asking anyone. */
  mode(tool: ToolEntry): ApprovalMode;
  decide(tool: ToolEntry, args: Record<string, unknown>): Promise<ApprovalDecision>;
}

export function createApprovalGate(options: ApprovalOptions, host: AgentHost | undefined): ApprovalGate {
  const always = new Set<string>();
  const autoReadOnly = options.autoAllowReadOnly ?? true;

  function mode(tool: ToolEntry): ApprovalMode {
    const policy = options.policies?.get(tool.server);
    const configured = policy?.tools[tool.tool] ?? policy?.default;
    if (configured === 'deny' || configured === 'allow') return configured;
    if (options.allowAll || always.has(tool.name)) return 'allow';
    if (configured === 'ask') return 'ask';
    const hints = tool.annotations;
    const readOnlyAllowed = autoReadOnly && policy?.autoAllowReadOnly !== false;
    if (readOnlyAllowed && hints?.readOnlyHint === true && hints.destructiveHint !== true) return 'allow';
    return 'ask';
  }

  return {
    mode,
    async decide(tool, args) {
      const m = mode(tool);
      if (m === 'allow') return { allowed: true };
      if (m === 'deny') return { allowed: false, reason: `the user's configuration denies ${tool.server} › ${tool.tool}` };
      if (!host?.approveToolCall) {
        return {
          allowed: false,
          reason: `${tool.server} › ${tool.tool} needs the user's approval and there is no terminal to ask (run with --yes, or allow it in the config's "approval")`,
        };
      }
      const answer = await host.approveToolCall({ tool, args });
      if (answer === 'always') {
        always.add(tool.name);
        return { allowed: true };
      }
      return answer ? { allowed: true } : { allowed: false, reason: `the user denied ${tool.server} › ${tool.tool}` };
    },
  };
}
