/** The subcommands of `mcp-server-memory`, apart from their code so that a server start loads none of it. */

const TRANSFER_COMMANDS = ['import', 'export'] as const;
export type TransferCommand = (typeof TRANSFER_COMMANDS)[number];

export const isTransferCommand = (word: string | undefined): word is TransferCommand =>
  (TRANSFER_COMMANDS as readonly (string | undefined)[]).includes(word);
