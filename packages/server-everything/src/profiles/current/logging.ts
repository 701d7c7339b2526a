import { sendLog } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { CurrentSession, Toggle } from './session.js';

/** The reference's messages, typo included (`Alert level-message`). */
export function simulatedLogMessages(sessionId: string | undefined): ReadonlyArray<{ level: LoggingLevel; data: string }> {
  const suffix = sessionId ? ` - SessionId ${sessionId}` : '';
  return [
    { level: 'debug', data: `Debug-level message${suffix}` },
    { level: 'info', data: `Info-level message${suffix}` },
    { level: 'notice', data: `Notice-level message${suffix}` },
    { level: 'warning', data: `Warning-level message${suffix}` },
    { level: 'error', data: `Error-level message${suffix}` },
    { level: 'critical', data: `Critical-level message${suffix}` },
    { level: 'alert', data: `Alert level-message${suffix}` },
    { level: 'emergency', data: `Emergency-level message${suffix}` },
  ];
}

/**
 * Random-leveled log messages, one at once and then one every `loggingMs`. `sendLog` passes the session
 * id, so the SDK drops the messages below the level this session's client set with `logging/setLevel`.
 */
export function createSimulatedLogging(server: McpServer, every: CurrentSession['every'], loggingMs: number): Toggle {
  let stop: (() => void) | undefined;
  return {
    get active() {
      return stop !== undefined;
    },
    start() {
      if (stop) return;
      const sessionId = server.server.transport?.sessionId;
      const messages = simulatedLogMessages(sessionId);
      stop = every(loggingMs, () => {
        const message = messages[Math.floor(Math.random() * messages.length)]!;
        void sendLog(server, message.level, message.data, undefined, sessionId);
      });
    },
    stop() {
      stop?.();
      stop = undefined;
    },
  };
}
