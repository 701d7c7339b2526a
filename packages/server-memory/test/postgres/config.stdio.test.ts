/** The built bin's PostgreSQL configuration: refusals (exit 2, one line, no password) and a start with the database down. */
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';

const bin = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('mcp-server-memory --storage postgres (built bin)', () => {
  it('refuses bad configuration with one stderr line and exit 2, never showing a password', async () => {
    using dir = tempDir();
    const cases: [Record<string, string>, string[], RegExp][] = [
      [{ MEMORY_STORAGE: 'postgres' }, [], /--storage postgres needs --database-url or MEMORY_DATABASE_URL/],
      [
        {},
        ['--storage', 'postgres', '--database-url', 'mysql://user:topsecret@db/x'],
        /invalid value for --database-url: expected a postgres:\/\//,
      ],
      [{ MEMORY_DATABASE_URL: 'not a url topsecret' }, ['--storage', 'postgres'], /invalid value for MEMORY_DATABASE_URL/],
      [{}, ['--storage', 'sqlite'], /invalid value for --storage: "sqlite" is not one of file, postgres/],
      [{}, ['--database-timeout', 'soon'], /invalid value for --database-timeout: "soon" is not a duration/],
      [
        { MEMORY_FILE_PATH: `${dir.path}/m.jsonl` },
        ['--graph', 'project-a'],
        /--graph selects a graph of the database and needs --storage postgres/,
      ],
      [
        { MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: 'postgres://localhost/x' },
        ['--graph', ''],
        /a graph name has 1 to 200 characters/,
      ],
    ];
    for (const [env, args, message] of cases) {
      const { code, stderr } = await runBin(bin, { env, args });
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).not.toContain('topsecret');
    }
  });

  it('starts with the database down, answers each call with a clear error, and never logs the password', async () => {
    const url = `postgres://memory:p%40ss-topsecret@127.0.0.1:${await freePort()}/memory?sslmode=disable`;
    await using proc = await spawnStdio(bin, { env: { MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: url, MEMORY_GRAPH: 'project-a' } });
    expect((await proc.client.listTools()).tools).toHaveLength(9);
    const res = (await proc.client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'A', entityType: 't', observations: [] }] },
    })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/^The memory database failed: .*ECONNREFUSED.*Nothing was changed/);
    expect(proc.stderr()).toContain('knowledge graph in PostgreSQL: postgres://memory:***@127.0.0.1:');
    expect(proc.stderr()).toContain('(graph "project-a")');
    expect(proc.stderr()).not.toMatch(/topsecret|p%40ss|p@ss/);
  });

  it('a database that accepts connections and then hangs fails each call after --database-timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket); // accepted, never answered
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const url = `postgres://memory@127.0.0.1:${port}/memory?sslmode=disable`;
      await using proc = await spawnStdio(bin, {
        env: { MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: url },
        args: ['--database-timeout', '1s'],
      });
      const started = Date.now();
      const res = (await proc.client.callTool({ name: 'read_graph', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      expect(Date.now() - started).toBeLessThan(1000 * 5); // a factor of the 1 s --database-timeout, the contract here
      expect(res.isError).toBe(true);
      expect(res.content[0]!.text).toMatch(/^The memory database did not answer within 1s \(.*\)\. Nothing was changed/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
