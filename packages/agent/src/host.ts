/**
 * What the agent asks of its host (a terminal, a test, an app): decisions only a person can make,
 * and where to show activity. Every method is optional; what is missing fails closed (approval and
 * sampling denied, elicitation declined) or is not shown.
 */
import type { ElicitRequest, ElicitResult, LoggingLevel } from '@modelcontextprotocol/client';
import type { TaskStatusUpdate } from './mcp/tasks/taskCall.js';
import type { ToolEntry } from './mcp/types.js';
import type { Message } from './types.js';

export interface ApprovalRequest {
  tool: ToolEntry;
  args: Record<string, unknown>;
}

export interface SamplingApprovalRequest {
  server: string;
  /** The messages the server wants the model to see, as the agent will send them. */
  messages: readonly Message[];
  systemPrompt?: string;
  maxTokens?: number;
}

export interface AgentHost {
  /** Only asked when the policy says `ask`. `'always'` allows this tool for the rest of the session. */
  approveToolCall?(request: ApprovalRequest): Promise<boolean | 'always'>;
  /** A server asks the user for input (form mode). */
  elicit?(server: string, params: ElicitRequest['params']): Promise<ElicitResult>;
  /** A server asks to use the model; shown and approved before it is sent. */
  approveSampling?(request: SamplingApprovalRequest): Promise<boolean>;
  /** A sampling reply, before it goes back to the server (display only). */
  showSamplingResult?(server: string, text: string): void;
  onLog?(server: string, level: LoggingLevel, data: unknown): void;
  onProgress?(server: string, tool: string, progress: { progress: number; total?: number; message?: string }): void;
  /** A tool call running as a task (tasks extension) changed status or status message. */
  onTaskStatus?(server: string, tool: string, update: TaskStatusUpdate): void;
  /** Something the user should know that is not an error of the run (a server failed to start, tools changed). */
  onNotice?(text: string): void;
  /** A line a stdio server wrote on its stderr (its own diagnostics). Absent: not shown. */
  onServerStderr?(server: string, line: string): void;
}
