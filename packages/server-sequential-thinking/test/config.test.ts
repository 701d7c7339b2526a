import { ConfigError, parseConfig } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { options, resolveLimits } from '../src/config.js';

const limits = (argv: string[], env: NodeJS.ProcessEnv = {}) => resolveLimits(parseConfig(options, argv, env));

describe('size limits from flags and environment', () => {
  it('defaults to 1000 thoughts, 8 MiB per session and 128 KiB per thought', () => {
    expect(limits([])).toEqual({ maxHistory: 1000, maxHistoryBytes: 8 * 1024 * 1024, maxThoughtBytes: 128 * 1024 });
  });

  it('reads sizes from flags, then from the environment', () => {
    expect(limits(['--max-history-bytes', '2mb', '--max-thought-bytes', '64k'])).toMatchObject({
      maxHistoryBytes: 2 * 1024 * 1024,
      maxThoughtBytes: 64 * 1024,
    });
    const env = { SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: '1.5mb', SEQUENTIAL_THINKING_MAX_THOUGHT_BYTES: '4096' };
    expect(limits([], env)).toMatchObject({ maxHistoryBytes: 1.5 * 1024 * 1024, maxThoughtBytes: 4096 });
    expect(limits(['--max-thought-bytes', '1kb'], env)).toMatchObject({ maxHistoryBytes: 1.5 * 1024 * 1024, maxThoughtBytes: 1024 });
  });

  it('refuses a value that is not a size, naming the flag or variable', () => {
    expect(() => limits(['--max-thought-bytes', 'lots'])).toThrow(
      new ConfigError('invalid value for --max-thought-bytes: "lots" is not a size (e.g. 10mb, 512k)', '--max-thought-bytes'),
    );
    expect(() => limits([], { SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: '0' })).toThrow(
      'invalid value for SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: "0" must be positive',
    );
  });

  it('lowers a default thought limit to a smaller budget, but refuses an explicit one above it', () => {
    expect(limits(['--max-history-bytes', '64kb'])).toMatchObject({ maxHistoryBytes: 65536, maxThoughtBytes: 65536 });
    expect(() => limits(['--max-history-bytes', '1mb', '--max-thought-bytes', '2mb'])).toThrow(
      new ConfigError(
        '--max-thought-bytes (2 MiB) must not exceed --max-history-bytes (1 MiB): a thought that large could never be kept',
        '--max-thought-bytes',
      ),
    );
    expect(() => limits(['--max-thought-bytes', '9mb'])).toThrow(
      '--max-thought-bytes (9 MiB) must not exceed --max-history-bytes (8 MiB): a thought that large could never be kept',
    );
    expect(() => limits([], { SEQUENTIAL_THINKING_MAX_THOUGHT_BYTES: '100000', SEQUENTIAL_THINKING_MAX_HISTORY_BYTES: '99999' })).toThrow(
      'SEQUENTIAL_THINKING_MAX_THOUGHT_BYTES (100000 bytes) must not exceed SEQUENTIAL_THINKING_MAX_HISTORY_BYTES (99999 bytes)',
    );
  });
});
