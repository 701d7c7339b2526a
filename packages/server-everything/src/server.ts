import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { EverythingOptions, Profile } from './context.js';
import { createConformanceServer } from './profiles/conformance/index.js';
import { createCurrentServer } from './profiles/current/index.js';
import { createLegacyServer } from './profiles/legacy/index.js';
import { withProfileSkills } from './skills.js';
import { VERSION } from './version.js';

export interface EverythingServerOptions extends EverythingOptions {
  /** Which contract to serve: `current` (default, npm 2026.8.31, the reference's `latest`), `legacy` (npm 2025.11.25) or `conformance`. */
  profile?: Profile;
}

/**
 * An everything server for one client session. No side effects at import: the runner calls this once per
 * session (HTTP) or once per process (stdio); tests call it directly. Timers and per-session state live in
 * the returned server and stop when it closes. `context` is what the SDK's serving entries pass their factory
 * (the protocol version the server will serve); the `current` profile reads it.
 */
export function createEverythingServer(options: EverythingServerOptions = {}, context?: McpRequestContext): McpServer {
  const { profile = 'current', ...rest } = options;
  switch (profile) {
    case 'legacy':
      return createLegacyServer(rest);
    case 'current':
      return withProfileSkills('current', createCurrentServer(rest, context), context);
    case 'conformance':
      return withProfileSkills('conformance', createConformanceServer(rest), context);
  }
}

export { type EverythingOptions, PROFILES, type Profile } from './context.js';
export type { Scheduler, TimerId } from './shared/scheduler.js';
export { createSpentStates, type SpentStates, type SpentStatesOptions } from './shared/spentStates.js';
export { VERSION };
