/**
 * The SDK's `createMcpHandler` may print a note with `console.warn` when it is built (it does for
 * `responseMode: 'json'`, which the runner no longer asks for: stateless answers stream once a call notifies), and
 * offers no option to turn it off. Our bins log through their `Logger` only, so any `console.warn` while the handler
 * is built goes to the logger instead: the known note at `debug`, anything else at `warn`.
 */
import type { Logger } from '../../logger.js';

const JSON_MODE_NOTE = /^responseMode: 'json' drops mid-call notifications/;

/** Runs `build`, which must be synchronous, with `console.warn` sent to `logger`; `console.warn` is restored after. */
export function withSdkWarningsTo<T>(logger: Logger, build: () => T): T {
  // biome-ignore lint/suspicious/noConsole: the SDK's console.warn is what is redirected here.
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    const text = args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ');
    if (JSON_MODE_NOTE.test(text)) logger.debug(`SDK: ${text}`);
    else logger.warn(`SDK: ${text}`);
  };
  try {
    return build();
  } finally {
    console.warn = original;
  }
}
