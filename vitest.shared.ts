import { defineProject } from 'vitest/config';

/** Workspace packages resolve to their TypeScript source in tests, so nothing waits on a build. */
const conditions = ['@mcpkit/source', 'import', 'module', 'node', 'default'];

/**
 * The `slow` tag: PostgreSQL suites and tests that take over 2 s on a busy machine. Tag a file with a
 * `// @module-tag slow` comment at its top, a test with `{ tags: ['slow'] }`. `pnpm test:fast` leaves them out
 * (`--tags-filter='!slow'`); `pnpm test` and CI run everything.
 */
const tags = [{ name: 'slow', description: 'PostgreSQL suites and tests over 2 s on a busy machine; pnpm test:fast leaves them out' }];

/** Unit and in-process tests: `test/**\/*.test.ts`, except the stdio smoke tests. */
export const unitConfig = defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@mcpkit/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.stdio.test.ts', '**/node_modules/**'],
    environment: 'node',
    tags,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // `expect.poll` waits for something that happens "soon" (a stream noticed closed, a notification); 1 s (the
    // default) is too little on a 2-core CI runner with two packages' suites at once. A failure still fails.
    expect: { poll: { timeout: 5000 } },
  },
});

/** Black-box tests that spawn the built bin: `test/**\/*.stdio.test.ts` (run after `build`). */
export const stdioConfig = defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@mcpkit/source'] } },
  test: {
    include: ['test/**/*.stdio.test.ts'],
    environment: 'node',
    tags,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
