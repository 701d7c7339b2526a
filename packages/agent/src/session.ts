/**
 * The conversation a run appends to (the seed's `AgentSession`). The pipeline works on the messages
 * of one run and commits them here when the run ends, so an interrupted run never leaves half a
 * round (an assistant message with tool calls but no tool messages) in the history.
 */
import type { Message } from './types.js';

export interface AgentSession {
  addMessage(message: Message): void;
  getMessages(): ReadonlyArray<Message>;
  /** Forget everything but the system message (interactive `/clear`). */
  clear(): void;
}

export function createSession(systemPrompt?: string): AgentSession {
  const system: Message[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
  let messages: Message[] = [...system];
  return {
    addMessage(message) {
      messages.push(message);
    },
    getMessages() {
      return messages;
    },
    clear() {
      messages = [...system];
    },
  };
}
