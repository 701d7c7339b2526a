/** What git_fetch, git_pull and git_push share: the request's signal and progress for the engine, and how ref updates are worded. */
import { createProgressReporter, formatBytes, type RequestContext } from '@mcpkit/protocol-core';
import type { CallOptions } from '../engine/remote/call.js';
import type { RefUpdate } from '../engine/remote/ops.js';

/** The network call's cancellation (the request's signal) and progress (`notifications/progress` when the client asked). */
export function remoteCall(extra: RequestContext | undefined): CallOptions {
  if (!extra) return {};
  return { signal: extra.mcpReq.signal, progress: () => createProgressReporter(extra), formatBytes };
}

/** Seven hex digits, as git abbreviates in fetch/push summaries. */
export function short(oid: string): string {
  return oid.slice(0, 7);
}

/** `main 1a2b3c4..5d6e7f8`, `feature (new) 5d6e7f8`, `old (deleted)`, `v1 (new tag) 5d6e7f8`. */
export function describeUpdate(u: RefUpdate): string {
  const tag = u.ref.startsWith('refs/tags/');
  if (u.old === null) return `${u.name} (${tag ? 'new tag' : 'new'}) ${short(u.new ?? '')}`;
  if (u.new === null) return `${u.name} (deleted)`;
  return `${u.name} ${short(u.old)}..${short(u.new)}`;
}
