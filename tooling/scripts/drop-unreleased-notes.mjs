#!/usr/bin/env node
// Run by `pnpm version-packages` after `changeset version`: every published package that now has a version to
// publish (not 0.0.0) loses the `> **Not on npm yet.** …` note of its README (npm shows that README, and the note
// would tell users that the package they are reading about gets a 404). The root README's note goes once no
// published package is left at 0.0.0. The note is the blockquote that starts with the marker, up to the first line
// that is not part of it. check-readmes.mjs fails while a versioned package still has it, and `pnpm release`
// runs that check before publishing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NOT_ON_NPM } from './check-readmes.mjs';
import { publicPackages, root } from './lib.mjs';

/** `markdown` without the blockquote that starts with NOT_ON_NPM (and the blank line after it). */
export function dropNote(markdown) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(NOT_ON_NPM));
  if (start < 0) return markdown;
  let end = start;
  while (end < lines.length && lines[end].startsWith('>')) end += 1;
  while (end < lines.length && lines[end].trim() === '') end += 1;
  return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
}

let unreleasedLeft = 0;
for (const pkg of publicPackages()) {
  if (!existsSync(pkg.readme)) continue;
  if (pkg.version === '0.0.0') {
    unreleasedLeft += 1;
    continue;
  }
  const before = readFileSync(pkg.readme, 'utf8');
  const after = dropNote(before);
  if (after !== before) {
    writeFileSync(pkg.readme, after);
    console.log(`[notes] ${pkg.group}/${pkg.dir}/README.md: "Not on npm yet" note removed (${pkg.name}@${pkg.version})`);
  }
}
const rootReadme = join(root, 'README.md');
if (unreleasedLeft === 0) {
  const before = readFileSync(rootReadme, 'utf8');
  const after = dropNote(before);
  if (after !== before) {
    writeFileSync(rootReadme, after);
    console.log('[notes] README.md: "Not on npm yet" note removed (every published package has a version)');
  }
}
