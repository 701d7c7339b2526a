/** The committer identity (env, then config, like git) in the shape isomorphic-git takes. */
import type { GitContext } from '../context.js';
import { type Role, resolvePerson } from '../git/identity.js';
import type { Repo } from '../repo.js';

export interface Identity {
  name: string;
  email: string;
  timestamp: number;
  /** isomorphic-git's offset: minutes WEST of UTC. */
  timezoneOffset: number;
}

/** Who is writing (tagger, stash or merge committer); a ToolError saying how to configure one when unknown. */
export function identityFor(repo: Repo, ctx: GitContext, role: Role = 'committer'): Identity {
  const p = resolvePerson(repo, { env: ctx.env, home: ctx.home }, role);
  return { name: p.name, email: p.email, timestamp: p.timestamp, timezoneOffset: p.offset === 0 ? 0 : -p.offset };
}
