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
    // every server on the tour speaks 2026-07-28 to the v2 client in auto mode
    expect(text.match(/speaking MCP 2026-07-28/g)).toHaveLength(4);
    // sequential-thinking
    expect(text).toMatch(
      /connected to sequential-thinking-server .* speaking MCP 2026-07-28 \(2026 era: server\/discover, no initialize\)/,
    );
    expect(text).toContain('"thoughtHistoryLength": 4');
    expect(text).toContain('branches: journal');
    // memory: results, the reference error text, and the JSONL file
    expect(text).toMatch(/connected to memory-server .* speaking MCP 2026-07-28 \(2026 era: server\/discover, no initialize\)/);
    expect(text).toContain('[isError] Entity with name Nobody not found');
    expect(text).toContain('{"type":"relation","from":"Ada","to":"Scheduler","relationType":"maintains"}');
    // fetch: Markdown, paging, robots.txt, SSRF refusals, the prompt
    expect(text).toMatch(/connected to mcp-fetch .* speaking MCP 2026-07-28/);
    expect(text).toContain('## What they wrote down');
    expect(text).toMatch(/start_index of \d+ to get more content/);
    expect(text).toContain('specifies that autonomous fetching of this page is not allowed');
    expect(text).toContain('169.254.169.254 is a cloud metadata address');
    expect(text).toContain('127.0.0.1 is a loopback address');
    // git: made by the server itself, diffs as git prints them, refusals outside the folder
    expect(text).toMatch(/connected to mcp-git .* speaking MCP 2026-07-28 \(2026 era: server\/discover, no initialize\)/);
    expect(text).toMatch(/Initialized empty Git repository in .*notes\/\.git/);
    expect(text).toContain('+1843-11-03 W 4, fair');
    expect(text).toContain("Created branch 'november' from 'main'");
    expect(text).toContain('is outside the allowed root');
    expect(text).toContain("Ref 'Invalid target: '--output=/tmp/evil' - cannot start with '-'' did not resolve to an object");
    // agent: the CLI on the scripted model, using the memory server it started
    expect(text).toContain('The model here is scripted');
    expect(text).toContain('memory › create_entities ok');
    expect(text).toContain('Saved. Ada is a person who maintains the scheduler.');
    expect(text).toContain('The model was called 3 times');
    // only the deliberate failures are errors
    expect(text.match(/\[isError\]/g)).toHaveLength(7);
  });
});
