import type { AnyToolDefinition } from '@mcpkit/protocol-core';
import type { LegacySession } from '../session.js';
import { add } from './add.js';
import { annotatedMessage } from './annotatedMessage.js';
import { echo } from './echo.js';
import { getResourceLinks } from './getResourceLinks.js';
import { getResourceReference } from './getResourceReference.js';
import { getTinyImage } from './getTinyImage.js';
import { listRoots } from './listRoots.js';
import { longRunningOperation } from './longRunningOperation.js';
import { printEnv } from './printEnv.js';
import { sampleLlm } from './sampleLlm.js';
import { startElicitation } from './startElicitation.js';
import { structuredContent } from './structuredContent.js';
import { zip } from './zip.js';

/**
 * In the order of the reference's `tools/list`; `listRoots` and `startElicitation` only for clients with
 * roots / elicitation (`listing.listedFor`). Registered with `wire: 'low-level'`: each tool's `listing` holds
 * the reference's JSON Schemas, and failures are JSON-RPC errors with the reference's texts.
 */
export const tools: ReadonlyArray<AnyToolDefinition<LegacySession>> = [
  echo,
  add,
  longRunningOperation,
  printEnv,
  sampleLlm,
  getTinyImage,
  annotatedMessage,
  getResourceReference,
  getResourceLinks,
  structuredContent,
  zip,
  listRoots,
  startElicitation,
];
