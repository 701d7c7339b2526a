/**
 * The reference's (legacy profile's) tools/list for a client without capabilities, in its order; `listRoots` and
 * `startElicitation` follow for clients with roots / elicitation.
 */
export const LEGACY_UNGATED_TOOLS = [
  'echo',
  'add',
  'longRunningOperation',
  'printEnv',
  'sampleLLM',
  'getTinyImage',
  'annotatedMessage',
  'getResourceReference',
  'getResourceLinks',
  'structuredContent',
  'zip',
];
