import { describe, expect, it } from 'vitest';
import { stops } from '../src/stops/index.js';
import { runTour } from '../src/tour.js';
import { createTranscript } from '../src/transcript.js';

describe('the tour', () => {
  it('visits every server and shows what each one does', async () => {
    const result = await runTour(
      stops,
      createTranscript(() => {}),
    );
    expect(result.failures).toEqual([]);
    const text = result.transcript.join('\n');
    // sequential-thinking
    expect(text).toContain('initialized sequential-thinking-server');
    expect(text).toContain('"thoughtHistoryLength": 4');
    expect(text).toContain('branches: journal');
    // memory: results, the reference error text, and the JSONL file
    expect(text).toContain('initialized memory-server');
    expect(text).toContain('[isError] Entity with name Nobody not found');
    expect(text).toContain('{"type":"relation","from":"Ada","to":"Scheduler","relationType":"maintains"}');
    // fetch: Markdown, paging, robots.txt, SSRF refusals, the prompt
    expect(text).toContain('## What they wrote down');
    expect(text).toMatch(/start_index of \d+ to get more content/);
    expect(text).toContain('specifies that autonomous fetching of this page is not allowed');
    expect(text).toContain('169.254.169.254 is a cloud metadata address');
    expect(text).toContain('127.0.0.1 is a loopback address');
    // only the deliberate failures are errors
    expect(text.match(/\[isError\]/g)).toHaveLength(4);
  });
});
