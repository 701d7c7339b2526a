import type { AnyToolDefinition } from '@mcpkit/protocol-core';
import type { ClientCapabilities, RegisteredTool } from '@modelcontextprotocol/server';
import type { CurrentSession } from '../session.js';
import { echo } from './echo.js';
import { getAnnotatedMessage } from './getAnnotatedMessage.js';
import { getEnv } from './getEnv.js';
import { getResourceLinks } from './getResourceLinks.js';
import { getResourceReference } from './getResourceReference.js';
import { getRootsList } from './getRootsList.js';
import { getStructuredContent } from './getStructuredContent.js';
import { getSum } from './getSum.js';
import { getTinyImage } from './getTinyImage.js';
import { gzipFileAsResource } from './gzipFileAsResource.js';
import type { TaskSession } from './simulateResearchQuery.js';
import { registerSimulateResearchQuery } from './simulateResearchQuery.js';
import { toggleSimulatedLogging } from './toggleSimulatedLogging.js';
import { toggleSubscriberUpdates } from './toggleSubscriberUpdates.js';
import { triggerElicitationRequest } from './triggerElicitationRequest.js';
import { triggerElicitationRequestAsync } from './triggerElicitationRequestAsync.js';
import { triggerLongRunningOperation } from './triggerLongRunningOperation.js';
import { triggerSamplingRequest } from './triggerSamplingRequest.js';
import { triggerSamplingRequestAsync } from './triggerSamplingRequestAsync.js';
import { triggerUrlElicitation } from './triggerUrlElicitation.js';

/** Registered with the server, in the reference's `tools/list` order. */
export const tools: ReadonlyArray<AnyToolDefinition<CurrentSession>> = [
  echo,
  getAnnotatedMessage,
  getEnv,
  getResourceLinks,
  getResourceReference,
  getStructuredContent,
  getSum,
  getTinyImage,
  gzipFileAsResource,
  toggleSimulatedLogging,
  toggleSubscriberUpdates,
  triggerLongRunningOperation,
];

/**
 * A tool a client sees only when its capabilities allow it. A 2025-11-25 session gets it registered after
 * `initialized` (as the reference); a 2026-07-28 request finds it registered and listed when that request's
 * `_meta` declares the capabilities (`modernTools.ts`), except a `legacyOnly` one, which needs a 2025 client.
 */
export type GatedTool = {
  when(client: ClientCapabilities): boolean;
  /** Polls a task the client runs (2025-11-25 client tasks, requested server→client): no 2026-07-28 client can. */
  legacyOnly?: true;
} & ({ tool: AnyToolDefinition<CurrentSession> } | { name: string; register(session: TaskSession): RegisteredTool });

/** In the reference's order (which is their order in `tools/list`, after `tools`). */
export const gatedTools: readonly GatedTool[] = [
  { tool: getRootsList, when: (c) => c.roots !== undefined },
  { tool: triggerElicitationRequest, when: (c) => c.elicitation !== undefined },
  { tool: triggerUrlElicitation, when: (c) => c.elicitation?.url !== undefined },
  { tool: triggerSamplingRequest, when: (c) => c.sampling !== undefined },
  // A server-side task: every client gets it (it elicits only from clients that can answer).
  { name: 'simulate-research-query', register: registerSimulateResearchQuery, when: () => true },
  {
    tool: triggerSamplingRequestAsync,
    when: (c) => c.sampling !== undefined && c.tasks?.requests?.sampling?.createMessage !== undefined,
    legacyOnly: true,
  },
  {
    tool: triggerElicitationRequestAsync,
    when: (c) => c.elicitation !== undefined && c.tasks?.requests?.elicitation?.create !== undefined,
    legacyOnly: true,
  },
];
