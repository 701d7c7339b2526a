import type { Annotations } from '@mcpkit/protocol-core';

/** The hints of a tool that returns fixed content (or a fixed error) and changes nothing. */
export const FIXED_RESULT: Annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
