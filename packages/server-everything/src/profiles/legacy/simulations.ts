import { sendLog } from '@mcpkit/protocol-core';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { LegacySession } from './session.js';

/** The reference's eight random log messages (`Alert level-message` sic), with ` - SessionId <id>` over HTTP. */
export function logMessages(sessionId: string | undefined): { level: LoggingLevel; data: string }[] {
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
 * Starts this session's two simulations, always on as in the reference: every `resourceUpdatesMs`,
 * `notifications/resources/updated` for each URI the session subscribed to; every `loggingMs`, one random
 * log message, which the SDK drops when it is below the level the session set with `logging/setLevel`.
 * Both intervals are unref'd and stop when the session closes; a non-positive interval turns its simulation off.
 */
export function startSimulations(
  { server, config, closed }: LegacySession,
  sessionId: string | undefined,
  subscribed: () => Iterable<string>,
  notifyUpdated: (uri: string) => void,
): void {
  const every = (ms: number, tick: () => void) => {
    if (!(ms > 0) || closed.aborted) return;
    const handle = setInterval(tick, ms);
    handle.unref();
    closed.addEventListener('abort', () => clearInterval(handle), { once: true });
  };
  every(config.resourceUpdatesMs, () => {
    for (const uri of subscribed()) notifyUpdated(uri);
  });
  const messages = logMessages(sessionId);
  every(config.loggingMs, () => {
    const message = messages[Math.floor(Math.random() * messages.length)]!;
    void sendLog(server, message.level, message.data, undefined, sessionId);
  });
}
