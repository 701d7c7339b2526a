// The image's install stage: for each server that tarballs/index.json lists, an empty npm project under <out>/<dir>
// with `npm install --omit=dev` of that server's tarballs (the server and the workspace packages it depends on),
// which is what `npx -y` installs for an npm user; plus the empty <out>/data that memory's volume starts from.
// Plain Node, run by the Dockerfile as `node install.mjs <tarballs> <out>`; no shell needed in the base image.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [from, out] = process.argv.slice(2);
if (!from || !out) {
  console.error('usage: node install.mjs <tarballs folder> <output folder>');
  process.exit(2);
}
const index = JSON.parse(readFileSync(join(from, 'index.json'), 'utf8'));
const servers = Object.entries(index.servers ?? {});
if (servers.length === 0) {
  console.error(`install.mjs: ${join(from, 'index.json')} lists no server`);
  process.exit(1);
}

function npmInstall(dir, specs) {
  return new Promise((resolve) => {
    const args = ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error', ...specs];
    const child = spawn('npm', args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) => resolve(`could not start npm: ${error.message}`));
    child.once('close', (code, signal) => resolve(code === 0 ? undefined : `npm install exited ${signal ?? code}`));
  });
}

// Two installs at a time: they wait on the registry (or the cache) more than on the CPU.
const failures = [];
const queue = [...servers];
const worker = async () => {
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [dir, files] = next;
    const project = join(out, dir);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: `mcpkit-image-${dir}`, private: true }, null, 2)}\n`);
    const started = Date.now();
    const failure = await npmInstall(
      project,
      files.map((f) => join(from, f)),
    );
    if (failure) failures.push(`${dir}: ${failure}`);
    else console.log(`install.mjs: ${dir} installed from ${files.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }
};
await Promise.all([worker(), worker()]);
mkdirSync(join(out, 'data'), { recursive: true });
if (failures.length > 0) {
  for (const f of failures) console.error(`install.mjs: ${f}`);
  process.exit(1);
}
