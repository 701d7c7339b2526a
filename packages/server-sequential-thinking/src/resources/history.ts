import { defineResource, fitCount } from '@mcpkit/protocol-core';
import type { HistorySnapshot } from '../history.js';
import type { ThinkingContext } from '../tools/sequentialThinking.js';

export const HISTORY_URI = 'sequentialthinking://history';

/** This session's thoughts and branches as JSON, so a client can read back what was recorded. */
const historyResource = defineResource<ThinkingContext>({
  name: 'thought-history',
  title: 'Thought history',
  description:
    "This session's recorded thoughts (oldest first) and branches, as JSON. Bounded by --max-history (count) and --max-history-bytes (`bytes` is the current size); `dropped` counts thoughts that fell off the front; `omitted`, present only when the whole would be over the 8 MiB answer limit, counts the oldest thoughts left out of this read.",
  mimeType: 'application/json',
  uri: HISTORY_URI,
  read: async (uri, _params, { history }) => {
    const snapshot = history.snapshot();
    const answer = (s: HistorySnapshot | (HistorySnapshot & { omitted: number })) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(s, null, 2) }],
    });
    // Over the answer limit (clients drop messages over 10 MiB), the oldest thoughts are left out of this
    // read (they stay in the history) and `omitted` says how many.
    const { value } = await fitCount(snapshot.thoughts.length, (kept) =>
      answer(kept === snapshot.thoughts.length ? snapshot : newest(snapshot, kept)),
    );
    return value;
  },
});

/** `snapshot` with only its newest `kept` thoughts, in the list and in the branches. */
function newest(snapshot: HistorySnapshot, kept: number): HistorySnapshot & { omitted: number } {
  const thoughts = snapshot.thoughts.slice(snapshot.thoughts.length - kept);
  const left = new Set(thoughts);
  const branches = Object.fromEntries(Object.entries(snapshot.branches).map(([id, list]) => [id, list.filter((t) => left.has(t))]));
  return { ...snapshot, thoughts, branches, omitted: snapshot.thoughts.length - kept };
}

export const resources = [historyResource];
