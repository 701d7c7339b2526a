/**
 * Task ids are bound to their owner: through the HTTP runner behind OAuth (oidc-provider on loopback, real tokens),
 * a task created with one user's token is unknown (-32602, the same answer as a made-up id) to another user's,
 * for tasks/get, tasks/update and tasks/cancel, and stays intact.
 */

import { startAuthServer, type TestAuthServer } from '@mcpkit/test-utils/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthGuard } from '../src/auth/guard.ts';
import { parseAuthConfig } from '../src/auth/options.ts';
import { freePort, type HttpFixture, startHttp } from '../src/testing/index.ts';
import { bearer } from './auth/protectedApp.ts';
import { rpc, type TasksApp, tasksApp } from './tasksExtension/app.ts';

const SCOPE = 'test:read';
const resources: Record<string, { scopes: string[] }> = {};
let as: TestAuthServer;
let fixture: TasksApp;
let http: HttpFixture;
let resource: string;

beforeAll(async () => {
  as = await startAuthServer({ resources });
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  resources[resource] = { scopes: [SCOPE] };
  const config = parseAuthConfig(['--oauth-issuer', as.issuer, '--oauth-audience', resource], {});
  if (!config) throw new Error('OAuth config expected');
  const scopes = { defaultTool: SCOPE };
  fixture = tasksApp({ scopes });
  http = await startHttp(fixture.app, { port, auth: createAuthGuard(config, { scopes, resourceName: 'tasks-owners' }) });
});

afterAll(async () => {
  fixture?.release();
  await http?.[Symbol.asyncDispose]();
  await as?.close();
});

describe('tasks extension: owners', () => {
  it("answers another user's task id as unknown, for every method, and leaves the task alone", async () => {
    const alice = bearer(await as.authorizationCodeToken({ resource, scope: SCOPE, login: 'alice' }));
    const bob = bearer(await as.authorizationCodeToken({ resource, scope: SCOPE, login: 'bob' }));
    const created = await rpc(http.endpoint, 'tools/call', { name: 'ask', arguments: {} }, { headers: alice });
    const taskId = created.result?.taskId as string;
    expect(created.result?.resultType).toBe('task');
    await expect
      .poll(async () => (await rpc(http.endpoint, 'tasks/get', { taskId }, { headers: alice })).result?.status)
      .toBe('input_required');

    const unknown = await rpc(http.endpoint, 'tasks/get', { taskId: 'made-up' }, { headers: bob });
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: { 'input-1': { action: 'accept' } } }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await rpc(http.endpoint, method, params, { headers: bob });
      expect(answer.error, method).toEqual(unknown.error);
      expect(answer.error?.code).toBe(-32602);
    }
    const { result } = await rpc(http.endpoint, 'tasks/get', { taskId }, { headers: alice });
    expect(result?.status).toBe('input_required');
    expect(Object.keys(result?.inputRequests as object)).toHaveLength(2);
  });
});
