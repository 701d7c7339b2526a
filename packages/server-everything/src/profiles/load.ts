/**
 * The CLI's way to a profile: only the chosen one is loaded (a dynamic import: its own chunks of the bin), so a
 * start evaluates one profile's tools, prompts and resources instead of all three. The library entry
 * (`server.ts`, `createEverythingServer`) keeps importing all three; both build the same servers.
 */

import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { EverythingOptions, Profile } from '../context.js';
import { withProfileSkills } from '../skills.js';

/**
 * Builds one server of a profile, as `createEverythingServer(options, context)` does for it; `declareTasks` tells the
 * process's tasks extension which tools run only as tasks before the first request arrives.
 */
export type ProfileFactory = ((options: EverythingOptions, context?: McpRequestContext) => McpServer) & {
  declareTasks?(tasks: TasksExtension): void;
};

export async function loadProfile(profile: Profile): Promise<ProfileFactory> {
  switch (profile) {
    case 'legacy': {
      const { createLegacyServer } = await import('./legacy/index.js');
      return (options) => createLegacyServer(options);
    }
    case 'current': {
      const { createCurrentServer } = await import('./current/index.js');
      return (options, context) => withProfileSkills('current', createCurrentServer(options, context), context);
    }
    case 'conformance': {
      const { createConformanceServer, declareTaskTools } = await import('./conformance/index.js');
      return Object.assign(
        (options: EverythingOptions, context?: McpRequestContext) =>
          withProfileSkills('conformance', createConformanceServer(options), context),
        { declareTasks: declareTaskTools },
      );
    }
  }
}
