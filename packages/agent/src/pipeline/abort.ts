/** Cancelling one step: a controller that follows the run's signal until the step is over. */
export interface StepAbort {
  controller: AbortController;
  /** Stop following the run's signal (the step is over). */
  release(): void;
}

export function linkedAbort(parent: AbortSignal): StepAbort {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, release: () => {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener('abort', onAbort) };
}
