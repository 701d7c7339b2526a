/**
 * Ctrl-C: the first press cancels what is running (a model call, or a tool call with
 * `notifications/cancelled` to its server); a second press while that is still winding down, or a
 * press with nothing running, exits (the caller shuts the servers down).
 */
interface InterruptTarget {
  /** Cancel the running step; false when nothing was running. */
  cancelCurrent(): boolean;
}

export interface InterruptHandler {
  /** What the next Ctrl-C cancels (undefined between runs). */
  setTarget(target: InterruptTarget | undefined): void;
  dispose(): void;
}

export function handleInterrupts(onExit: () => void, notify: (text: string) => void): InterruptHandler {
  let target: InterruptTarget | undefined;
  let pressedAt = 0;
  const onSigint = () => {
    const now = Date.now();
    const second = now - pressedAt < 2000;
    pressedAt = now;
    if (!second && target?.cancelCurrent()) {
      notify('cancelling… (Ctrl-C again to quit)');
      return;
    }
    onExit();
  };
  process.on('SIGINT', onSigint);
  return {
    setTarget(next) {
      target = next;
    },
    dispose() {
      process.off('SIGINT', onSigint);
    },
  };
}
