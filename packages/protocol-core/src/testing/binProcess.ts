/** What both eras' stdio helpers share: how a built bin is started for a test, and its stderr kept. */

export interface BinSpawnOptions {
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** Options for an SDK `StdioClientTransport` (v1 or v2) that runs `node <bin> …args` with a clean environment. */
export function binTransportParams(bin: string, { args = [], env = {}, cwd }: BinSpawnOptions) {
  return {
    command: process.execPath,
    args: [bin, ...args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe' as const,
    ...(cwd ? { cwd } : {}),
  };
}

/** Everything the transport's process writes to stderr, from now on. */
export function keepStderr(transport: { stderr: { on(event: 'data', listener: (chunk: Buffer) => void): unknown } | null }): () => string {
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return () => stderr;
}
