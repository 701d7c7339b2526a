import { defineOptions, parse } from '@mcpkit/protocol-core';

/** This server's own flags; `runCli` adds the transport flags every mcpkit bin has. Parsed once, passed down. */
export const options = defineOptions({
  'max-message-length': {
    type: 'string',
    env: '$ENV$_MAX_MESSAGE_LENGTH',
    valueName: 'n',
    description: 'Longest message the echo tool accepts, in characters',
    default: 10_000,
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
});
