import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { ANSWER_CAP, capText, fitItems } from '../limits.js';
import { openRepository, repoPath } from './common.js';

const gitTagInput = {
  repo_path: repoPath,
  name: z.string().optional().meta({ title: 'Name' }).describe('Tag to create; omit to list tags'),
  target: z.string().optional().meta({ title: 'Target' }).describe('Commit, branch or tag the new tag points to (default HEAD)'),
  message: z.string().optional().meta({ title: 'Message' }).describe('Makes an annotated tag with this message'),
  pattern: z.string().optional().meta({ title: 'Pattern' }).describe("When listing: only tags matching this glob (e.g. 'v1.*')"),
};

export const gitTag = defineTool({
  name: 'git_tag',
  title: 'List or create tags',
  description:
    'Lists tags (no name; optional glob pattern, as git tag -l) or creates one: lightweight, or annotated when a message is given (tagger from git config / GIT_COMMITTER_* like git). Refuses to move an existing tag.',
  input: gitTagInput,
  output: {
    tags: z
      .array(
        z.object({
          name: z.string(),
          oid: z.string().describe('The tag ref value: the tag object for annotated tags, else the commit'),
          annotated: z.boolean(),
          target: z.string().describe('The object the tag points to'),
          message: z.string().nullable(),
        }),
      )
      .describe('Listed tags, or the one created'),
    created: z.boolean(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const data = await (await openRepository(ctx, repo_path)).tags(options);
    if (!data.created) {
      return structuredResult(
        { tags: fitItems(data.tags, ANSWER_CAP), created: false },
        capText(data.tags.map((t) => t.name).join('\n'), 'Narrow the list with pattern.').text,
      );
    }
    const [info] = data.tags;
    return structuredResult(
      { tags: [info], created: true },
      `Created ${info.annotated ? 'annotated' : 'lightweight'} tag '${info.name}' at ${data.short}`,
    );
  },
});
