// A script's steps: one line each, the output of the failed ones, and the exit code.
import { tail } from './base.mjs';

/**
 * A step runner: prints `✓ name (1.2s)` or `✗ name` plus the command's output, and counts failures.
 * `conclude(okText)` ends the script: the failures and exit 1, or `[tag] OK in Ns: okText`.
 */
export function createSteps(tag) {
  const started = Date.now();
  const failures = [];
  return {
    failures,
    conclude(okText) {
      const secs = ((Date.now() - started) / 1000).toFixed(0);
      if (failures.length > 0) {
        console.log(`[${tag}] FAILED in ${secs}s:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
        process.exit(1);
      }
      console.log(`[${tag}] OK in ${secs}s: ${okText}`);
    },
    /** Runs `fn` (sync or async); it returns a run() result, `true`, or throws / returns a string reason. */
    async step(name, fn) {
      const started = Date.now();
      let reason;
      let output = '';
      try {
        const res = await fn();
        if (res && typeof res === 'object' && 'status' in res) {
          if (res.status !== 0) {
            reason = `exit ${res.status}${res.signal ? ` (${res.signal})` : ''}${res.error ? `: ${res.error.message}` : ''}`;
            output = res.output;
          }
        } else if (typeof res === 'string') reason = res;
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (reason === undefined) {
        console.log(`[${tag}] ✓ ${name} (${secs}s)`);
        return true;
      }
      console.log(`[${tag}] ✗ ${name} (${secs}s): ${reason}`);
      if (output) console.log(tail(output).replace(/^/gm, `[${tag}]   `));
      failures.push(`${name}: ${reason}`);
      return false;
    },
  };
}
