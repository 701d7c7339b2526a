import { definePrompt, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { URL_REQUIRED } from '../constants.js';
import { createProgress } from '../progress.js';
import type { FetchContext } from '../tools/fetch.js';

/**
 * The user-initiated pipeline: the user-specified agent, no robots.txt check, no pagination, the
 * URL used as given; a failure is returned as a prompt whose text is the error ("Failed to fetch").
 */
const fetchPrompt = definePrompt({
  name: 'fetch',
  title: 'Fetch',
  description: 'Fetch a URL and extract its contents as markdown',
  args: { url: z.string({ error: URL_REQUIRED }).describe('URL to fetch') },
  handler: async ({ url }, { fetcher }: FetchContext, extra) => {
    const progress = createProgress(extra);
    try {
      const page = await fetcher.fetchManually(url, { progress, signal: extra.mcpReq.signal });
      return {
        description: `Contents of ${url}`,
        messages: [{ role: 'user', content: { type: 'text', text: page.prefix + page.content } }],
      };
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      return {
        description: `Failed to fetch ${url}`,
        messages: [{ role: 'user', content: { type: 'text', text: error.message } }],
      };
    } finally {
      progress.end();
    }
  },
});

export const prompts = [fetchPrompt];
