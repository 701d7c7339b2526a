/** `get-env`: the environment as JSON, secret-looking values `[redacted]` unless `showEnvSecrets`. */
import { afterEach, describe, expect, it } from 'vitest';
import { connectCurrent, text } from './helpers.js';

const ENV = {
  HOME: '/home/ada',
  PATH: '/usr/bin:/bin',
  PWD: '/work',
  OPENAI_API_KEY: 'sk-proj-abcdefghijklmnopqrstuvwxyz',
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijklmnopqrstuv',
  DB_PASSWORD: 'hunter2',
  DATABASE_URL: 'postgres://app:s3cret@db.internal:5432/app',
  INNOCENT_LOOKING: 'ghp_0123456789abcdefghijklmnopqrstuv',
  EMPTY_SECRET: '',
};

async function getEnv(options: Parameters<typeof connectCurrent>[0]) {
  await using pair = await connectCurrent(options);
  return JSON.parse(text(await pair.client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
}

afterEach(() => {
  delete process.env.MCPKIT_TEST_SECRET_TOKEN;
});

describe('get-env', () => {
  it('redacts secret-looking names and values, keeps the rest and the order', async () => {
    const env = await getEnv({ env: ENV });
    expect(Object.keys(env)).toEqual(Object.keys(ENV));
    expect(env).toEqual({
      HOME: '/home/ada',
      PATH: '/usr/bin:/bin',
      PWD: '/work',
      OPENAI_API_KEY: '[redacted]',
      GITHUB_TOKEN: '[redacted]',
      DB_PASSWORD: '[redacted]',
      DATABASE_URL: '[redacted]',
      INNOCENT_LOOKING: '[redacted]',
      EMPTY_SECRET: '',
    });
  });

  it('shows everything with showEnvSecrets, as the reference does', async () => {
    await using pair = await connectCurrent({ env: ENV, showEnvSecrets: true });
    expect(text(await pair.client.callTool({ name: 'get-env', arguments: {} }))).toBe(JSON.stringify(ENV, null, 2));
  });

  it('reads process.env at call time by default', async () => {
    await using pair = await connectCurrent();
    process.env.MCPKIT_TEST_SECRET_TOKEN = 'abc';
    const env = JSON.parse(text(await pair.client.callTool({ name: 'get-env', arguments: {} }))) as Record<string, string>;
    expect(env.MCPKIT_TEST_SECRET_TOKEN).toBe('[redacted]');
    expect(env.PATH).toBe(process.env.PATH);
  });
});
