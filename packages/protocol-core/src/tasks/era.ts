import type { McpServer } from '@modelcontextprotocol/server';

/** The first protocol revision without the 2025 tasks methods (they moved to the tasks extension). */
const FIRST_MODERN_REVISION = '2026-07-28';

/**
 * Whether `server` serves a 2026-07-28-or-later client. The SDK binds the era per instance (a 2025
 * `initialize` or a 2026 serving entry), and revisions are ISO dates, so they compare as strings.
 */
export function isModernEra(server: McpServer): boolean {
  // Deprecated for reading client identity, but the documented per-instance answer to "which revision".
  const version = server.server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= FIRST_MODERN_REVISION;
}
