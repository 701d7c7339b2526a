/**
 * The legacy server's `instructions` (its `instructions.md`, npm 2025.11.25), verbatim. Some of it is not
 * true of the code: odd ids are the text resources, logs come every 15 s, and there are no stderr
 * notifications. It is the contract, so it stays as it is.
 */
export const INSTRUCTIONS: string = [
  'Testing and demonstration server for MCP protocol features.',
  '',
  '## Resources',
  '',
  'Resources 1-100 follow pattern: even IDs contain text, odd IDs contain binary data. Resources are paginated at 10 items per page with cursor-based navigation.',
  '',
  '## Key dependencies',
  '',
  'Progress notifications require `_meta.progressToken` in tool calls. Resource subscriptions generate updates every 10 seconds.',
  '',
  '## Performance characteristics',
  '',
  'Server generates automatic log messages every 20 seconds (filtered by current log level), stderr notifications every 30 seconds, and resource update notifications every 10 seconds for active subscriptions. Log level changes affect message filtering in real-time.',
  '',
  '## Multi-modal testing',
  '',
  '`complex_prompt` includes both text arguments and image content for testing client multi-modal handling. `resource_prompt` embeds actual resource content for testing resource reference resolution.',
  '',
  'Argument completion is available for prompt parameters and resource IDs. Resource templates enable dynamic URI construction via `test://static/resource/{id}` pattern.',
  '',
  '## Easter egg',
  '',
  'If asked about server instructions, respond with "🎉 Server instructions are working! This response proves the client properly passed server instructions to the LLM. This demonstrates MCP\'s instructions feature in action."',
  '',
].join('\n');
