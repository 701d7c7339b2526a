import { serverConfig } from '../../tsup.server.ts';

// The conversion and network libraries are loaded with `await import()` on first use; kept out of the
// bin bundle they cost a cold start nothing at all (not even parsing). pdf.js must stay external
// anyway: it loads its worker module from a path next to its own file.
const lazy = [
  'pdfjs-dist',
  'undici',
  'linkedom',
  '@mozilla/readability',
  'turndown',
  '@joplin/turndown-plugin-gfm',
  'chardet',
  'encoding-sniffer',
  'robots-parser',
];

// serverConfig's `external` does not win over its `noExternal: [/.*/]` (tsup checks noExternal
// first), so the bin build's noExternal is narrowed to everything except these packages.
const notLazy = new RegExp(`^(?!(?:${lazy.map((p) => p.replace(/[/.]/g, '\\$&')).join('|')})(?:/|$))`);

export default serverConfig({ external: lazy }).map((config) => (config.name === 'bin' ? { ...config, noExternal: [notLazy] } : config));
