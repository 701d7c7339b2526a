import type { LoggingLevel } from '@modelcontextprotocol/server';

/**
 * The reference's eight simulated log messages, one per level (`Alert level-message` sic, in both reference
 * versions), with ` - SessionId <id>` when the session has an id (HTTP).
 */
export function simulatedLogMessages(sessionId: string | undefined): { level: LoggingLevel; data: string }[] {
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
