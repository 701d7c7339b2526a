// Rebuilds data/pages.json.br from a folder of Readability test pages (one folder per page with
// source.html, expected.html and expected-metadata.json), e.g. mozilla/readability's test/test-pages.
// Usage: node scripts/pack.mjs <pages-dir>
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  process.stderr.write('usage: node scripts/pack.mjs <pages-dir>\n');
  process.exit(2);
}
const pages = readdirSync(dir)
  .filter((name) => existsSync(join(dir, name, 'source.html')))
  .sort()
  .map((name) => ({
    name,
    source: readFileSync(join(dir, name, 'source.html'), 'utf8'),
    expected: readFileSync(join(dir, name, 'expected.html'), 'utf8'),
    metadata: JSON.parse(readFileSync(join(dir, name, 'expected-metadata.json'), 'utf8')),
  }));
const out = fileURLToPath(new URL('../data/pages.json.br', import.meta.url));
const packed = brotliCompressSync(JSON.stringify(pages), {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
});
writeFileSync(out, packed);
process.stderr.write(`${pages.length} pages → ${out} (${packed.length} bytes)\n`);
