/**
 * Whether a promise has settled yet, read synchronously: for tests that drive a clock and check, between two
 * moves, that a call is still waiting or has ended. Watching it never turns a rejection into an unhandled one.
 */
export function trackSettled(promise: Promise<unknown>): () => boolean {
  let settled = false;
  const mark = () => {
    settled = true;
  };
  promise.then(mark, mark);
  return () => settled;
}
