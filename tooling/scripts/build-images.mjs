#!/usr/bin/env node
// Builds the servers' OCI images from their packed tarballs (tooling/images/Dockerfile), tagged as server.json's OCI
// entries name them: docker.io/mcpkit/server-<name>:<version>. A release runs it after `pnpm build` and pushes the
// tags it prints; check-images.mjs builds the same way and drives the images.
//
//   node tooling/scripts/build-images.mjs [server…] [--engine podman|docker] [--base IMAGE] [--push]   (pnpm images)
//
// --base defaults to the Dockerfile's (node:22-bookworm-slim, from a registry); --push pushes each tag once built.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DOCKERFILE, gitRevision, IMAGE_REPOSITORY, setupPodman, stageOf, writeContext } from './images.mjs';
import { createSteps, removeTemp, run, runAsync, selectServersOrExit } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string', default: 'podman' },
    base: { type: 'string' },
    push: { type: 'boolean' },
    keep: { type: 'boolean' },
  },
});
if (!['podman', 'docker'].includes(values.engine)) {
  console.error(`[build-images] --engine is podman or docker, not ${values.engine}`);
  process.exit(2);
}
const { step, conclude } = createSteps('build-images');
const { selected: servers } = selectServersOrExit('build-images', positionals);

let exec;
if (values.engine === 'podman') {
  const engine = setupPodman({ install: false });
  if (engine.problem) {
    console.error(`[build-images] ${engine.problem}`);
    process.exit(1);
  }
  exec = { async: engine.podmanAsync, sync: engine.podman, format: ['--format', 'docker'] };
} else {
  exec = { async: (args, o) => runAsync('docker', args, o), sync: (args, o) => run('docker', args, o), format: [] };
}

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-build-images-'));
const tags = [];
try {
  const context = join(tmp, 'context');
  const packed = await step('build context: pnpm pack of every server and the workspace packages it needs', async () => {
    const { problems } = await writeContext(context, servers);
    return problems.length === 0 ? true : problems.join('; ');
  });
  if (packed) {
    const revision = gitRevision();
    for (const server of servers) {
      const tag = `${IMAGE_REPOSITORY}/${server.dir}:${server.manifest.version}`;
      const ok = await step(`${server.dir}: build ${tag}`, () =>
        exec.async(
          [
            'build',
            ...exec.format,
            '--file',
            DOCKERFILE,
            '--target',
            stageOf(server),
            ...(values.base ? ['--build-arg', `BASE=${values.base}`] : []),
            '--build-arg',
            `VERSION=${server.manifest.version}`,
            '--build-arg',
            `REVISION=${revision}`,
            '--tag',
            tag,
            context,
          ],
          { timeoutMs: 20 * 60_000 },
        ),
      );
      if (!ok) continue;
      tags.push(tag);
      if (values.push) await step(`${server.dir}: push ${tag}`, () => exec.async(['push', tag], { timeoutMs: 10 * 60_000 }));
    }
  }
} finally {
  removeTemp('build-images', tmp, values.keep);
}
for (const tag of tags) console.log(`[build-images]   ${tag}`);
conclude(`${tags.length} images built${values.push ? ' and pushed' : ''}`);
