import { defineResource } from '@mcpkit/protocol-core';
import type { ThinkingContext } from '../tools/sequentialThinking.js';

export const HISTORY_URI = 'sequentialthinking://history';

/** This session's thoughts and branches as JSON, so a client can read back what was recorded. */
export const historyResource = defineResource<ThinkingContext>({
  name: 'thought-history',
  title: 'Thought history',
  description:
    "This session's recorded thoughts (oldest first) and branches, as JSON. Bounded by --max-history (count) and --max-history-bytes (`bytes` is the current size); `dropped` counts thoughts that fell off the front.",
  mimeType: 'application/json',
  uri: HISTORY_URI,
  read: (uri, _params, { history }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(history.snapshot(), null, 2) }],
  }),
});

export const resources = [historyResource];
