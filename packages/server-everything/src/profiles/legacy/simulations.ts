import { sendLog } from '@mcpkit/protocol-core';
import { simulatedLogMessages } from '../../shared/logMessages.js';
import type { LegacySession } from './session.js';

/**
 * Starts this session's two simulations, always on as in the reference: every `resourceUpdatesMs`,
 * `notifications/resources/updated` for each URI the session subscribed to; every `loggingMs`, one random
 * log message, which the SDK drops when it is below the level the session set with `logging/setLevel`.
 * Both intervals run on `config.scheduler` (unref'd on the real timers) and stop when the session closes; a non-positive interval turns its simulation off.
 */
export function startSimulations(
  { server, config, closed }: LegacySession,
  sessionId: string | undefined,
  subscribed: () => Iterable<string>,
  notifyUpdated: (uri: string) => void,
): void {
  const every = (ms: number, tick: () => void) => {
    if (!(ms > 0) || closed.aborted) return;
    const handle = config.scheduler.setInterval(tick, ms);
    closed.addEventListener('abort', () => config.scheduler.clearInterval(handle), { once: true });
  };
  every(config.resourceUpdatesMs, () => {
    for (const uri of subscribed()) notifyUpdated(uri);
  });
  const messages = simulatedLogMessages(sessionId);
  every(config.loggingMs, () => {
    const message = messages[Math.floor(Math.random() * messages.length)]!;
    void sendLog(server, message.level, message.data, undefined, sessionId);
  });
}
