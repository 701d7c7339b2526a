/**
 * Each profile's skills (SEP-2640): `skills/<profile>/<skill>/SKILL.md`, shipped with the package (next to `dist/`
 * and `src/`), served to 2026-07-28 clients. The `legacy` profile (npm 2025.11.25) has none.
 */
import { type ServerSkills, serverSkills } from '@mcpkit/protocol-core/skills';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { Profile } from './context.js';

const PROFILE_SKILLS: Partial<Record<Profile, ServerSkills>> = {
  current: serverSkills(new URL('../skills/current/', import.meta.url), { prefix: 'everything' }),
  conformance: serverSkills(new URL('../skills/conformance/', import.meta.url), { prefix: 'everything', directoryRead: true }),
};

/** `server` with its profile's skills attached when `context` is a 2026-07-28 one. */
export function withProfileSkills(profile: Profile, server: McpServer, context: McpRequestContext | undefined): McpServer {
  return PROFILE_SKILLS[profile]?.attach(server, context) ?? server;
}
