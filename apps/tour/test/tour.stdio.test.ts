import { describe, expect, it } from 'vitest';
import { stops } from '../src/stops/index.js';
import { runTour } from '../src/tour.js';
import { createTranscript } from '../src/transcript.js';

describe('the tour', () => {
  it('visits every server without a failure', async () => {
    const result = await runTour(
      stops,
      createTranscript(() => {}),
    );
    expect(result.failures).toEqual([]);
    const text = result.transcript.join('\n');
    expect(text).toContain('initialized sequential-thinking-server');
    expect(text).toContain('"thoughtHistoryLength": 4');
    expect(text).toContain('branches: journal');
    expect(text).not.toContain('[isError]');
  });
});
