import { sendLog } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import { simulatedLogMessages } from '../../shared/logMessages.js';
import type { CurrentSession, Toggle } from './session.js';

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
