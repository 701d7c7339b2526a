#!/usr/bin/env node
// `prepublishOnly` of every published package: refuses `npm publish` (or yarn, bun…) of a workspace package.
// Only pnpm rewrites `workspace:` ranges to real versions and applies `publishConfig` (the `exports` without the
// `@mcpkit/source` condition) when it packs; npm would publish a manifest that cannot install. Releases go
// through `pnpm release` (changeset publish → pnpm publish); see CONTRIBUTING.md, "Releases".
//
// Runs in the package folder (npm and pnpm run lifecycle scripts there) and reads the tool from
// npm_config_user_agent, which both set for lifecycle scripts ("pnpm/10.34.8 npm/? node/v20…", "npm/10.8.2 node/…").
// `pack` does not run prepublishOnly, so tooling/scripts/check-pack.mjs (pnpm pack) never gets here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by the package manager for lifecycle scripts, not a turbo task input
const agent = process.env.npm_config_user_agent ?? '';
const tool = agent.split('/')[0] || 'an unknown tool';
if (tool !== 'pnpm') {
  const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
  const fields = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
  const workspace = fields.flatMap((field) =>
    Object.entries(manifest[field] ?? {})
      .filter(([, range]) => String(range).startsWith('workspace:'))
      .map(([name, range]) => `${name}@${range}`),
  );
  const npmIgnores = Object.keys(manifest.publishConfig ?? {}).filter((k) => !['access', 'registry', 'tag', 'provenance'].includes(k));
  if (workspace.length > 0 || npmIgnores.length > 0) {
    const what =
      workspace.length > 0
        ? `workspace: ranges that cannot install (${workspace.join(', ')})`
        : `a manifest without its publishConfig (${npmIgnores.join(', ')})`;
    console.error(
      `${manifest.name}: refusing to publish with ${tool}: use \`pnpm release\` / \`pnpm publish\`; ${tool} would publish ${what}. See CONTRIBUTING.md, "Releases".`,
    );
    process.exit(1);
  }
}
