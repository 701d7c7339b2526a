/**
 * The config's `protocol` as the SDK client's `versionNegotiation`, and what to say when a server
 * does not speak the era it was asked for.
 *
 * Measured with `@modelcontextprotocol/client` 2.4 against mcpkit's own servers (v1 SDK, 2025-11-25
 * only) over stdio: `legacy` connects in one round trip; `auto` probes `server/discover` on a
 * sibling process the SDK spawns for the purpose, gets -32601 at once and falls back (about
 * 0.1-0.3 s and one extra process per connect); a server that never answers the probe holds
 * `auto` for the whole probe timeout (which is the connect timeout unless bounded). Hence the
 * default is `legacy`, and `auto` gets a short probe of its own.
 */
import { SdkError, SdkErrorCode, type VersionNegotiationOptions } from '@modelcontextprotocol/client';
import type { ProtocolMode } from './types.js';

/** The mode for a server without its own `protocol` (and no host default). */
export const DEFAULT_PROTOCOL_MODE: ProtocolMode = 'legacy';
/** How long `auto` waits for an answer to `server/discover` before taking the server as legacy (stdio). */
export const AUTO_PROBE_TIMEOUT_MS = 3_000;

/** `versionNegotiation` for `mode`, with the probe bounded by `remainingMs` (and by 3 s for `auto`). */
export function versionNegotiation(mode: ProtocolMode, remainingMs: number): VersionNegotiationOptions {
  if (mode === 'legacy') return { mode: 'legacy' };
  if (mode === 'auto') return { mode: 'auto', probe: { timeoutMs: Math.min(AUTO_PROBE_TIMEOUT_MS, remainingMs), maxRetries: 0 } };
  return { mode: { pin: mode }, probe: { timeoutMs: remainingMs, maxRetries: 0 } };
}

/** One line for a failed era negotiation (a pinned server that is legacy), or undefined for any other error. */
export function eraFailure(error: unknown, mode: ProtocolMode): string | undefined {
  if (!(error instanceof SdkError) || error.code !== SdkErrorCode.EraNegotiationFailed) return undefined;
  if (mode === 'legacy' || mode === 'auto') return `protocol negotiation failed: ${error.message}`;
  return `does not speak protocol ${mode} (it did not offer it via server/discover); set "protocol": "auto" or "legacy" for it`;
}
