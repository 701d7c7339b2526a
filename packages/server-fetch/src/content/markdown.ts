import type TurndownService from 'turndown';

type Turndown = typeof TurndownService;
type Plugin = TurndownService.Plugin;

/** Stand-ins for task-list checkboxes, which Readability would drop (see html.ts). */
export const TASK_DONE = '\u2611';
export const TASK_OPEN = '\u2610';

/** Resolves `href`/`src` against the page URL; `undefined` for links that lead nowhere useful. */
function resolveUrl(raw: string | null, base: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || value.startsWith('#')) return undefined;
  let url: URL;
  try {
    url = base ? new URL(value, base) : new URL(value);
  } catch {
    // No base (or a broken one): keep what the page says, it is still better than nothing.
    return base ? undefined : value;
  }
  if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'vbscript:') return undefined;
  return url.href;
}

/** Markdown link destinations must not contain spaces or unbalanced parentheses. */
function destination(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => encodeURIComponent(c));
}

/** Elements with nothing to read (`nodeName` is upper-case for HTML, as given for SVG). */
const REMOVED = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'SVG',
  'svg',
  'CANVAS',
  'BUTTON',
  'SELECT',
  'INPUT',
]);

const TABLE_SECTIONS = new Set(['THEAD', 'TBODY', 'TFOOT']);

/** The rows of a table, without those of nested tables (linkedom has no `HTMLTableElement.rows`). */
function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of Array.from(table.children)) {
    if (child.nodeName === 'TR') rows.push(child);
    else if (TABLE_SECTIONS.has(child.nodeName)) for (const row of Array.from(child.children)) if (row.nodeName === 'TR') rows.push(row);
  }
  return rows;
}

function cells(row: Element): Element[] {
  return Array.from(row.children).filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH');
}

function span(cell: Element): number {
  const n = Number.parseInt(cell.getAttribute('colspan') ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, 50) : 1;
}

interface TableShape {
  /** A layout table (nested tables, or a single cell): its cells are rendered as plain blocks. */
  layout: boolean;
  columns: number;
  firstRow: Element | undefined;
}

function closest(node: Node, name: string): Element | undefined {
  let current = node.parentNode;
  while (current && current.nodeName !== name) current = current.parentNode;
  return (current as Element | null) ?? undefined;
}

/**
 * A Turndown instance for LLM-friendly Markdown: ATX headings, fenced code, `-` bullets with
 * CommonMark indentation, GFM tables (built from the DOM, so they work on linkedom), strikethrough,
 * task lists, absolute link and image URLs, and no `data:` blobs.
 */
export function createTurndown(Service: Turndown, plugins: { strikethrough: Plugin; highlightedCodeBlock: Plugin }) {
  const state: { base: string | undefined } = { base: undefined };
  const shapes = new WeakMap<Element, TableShape>();
  /** Position of each item in its `<ol>`, computed once per list (`children` is rebuilt on every read). */
  const itemIndexes = new WeakMap<Element, Map<Node, number>>();

  function itemIndex(list: Element, item: Node): number {
    let indexes = itemIndexes.get(list);
    if (!indexes) {
      indexes = new Map(Array.from(list.children, (child, i) => [child, i] as const));
      itemIndexes.set(list, indexes);
    }
    return indexes.get(item) ?? 0;
  }

  function shape(table: Element): TableShape {
    let s = shapes.get(table);
    if (!s) {
      const rows = tableRows(table);
      const columns = Math.max(0, ...rows.map((r) => cells(r).reduce((n, c) => n + span(c), 0)));
      const layout = table.querySelector('table') !== null || rows.length === 0 || (rows.length === 1 && columns <= 1);
      s = { layout, columns, firstRow: rows[0] };
      shapes.set(table, s);
    }
    return s;
  }

  const service = new Service({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  service.use([plugins.strikethrough, plugins.highlightedCodeBlock]);
  service.remove((node) => REMOVED.has(node.nodeName));

  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      const parent = node.parentNode as Element | null;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number.parseInt(parent.getAttribute('start') ?? '1', 10);
        const index = itemIndex(parent, node);
        prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
      }
      const isParagraph = /\n$/.test(content);
      let body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (isParagraph ? '\n' : '');
      let box = '';
      if (body.startsWith(TASK_DONE) || body.startsWith(TASK_OPEN)) {
        box = body.startsWith(TASK_DONE) ? '[x] ' : '[ ] ';
        body = body.slice(1).trimStart();
      }
      return `${prefix}${box}${body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`)}${node.nextSibling ? '\n' : ''}`;
    },
  });

  service.addRule('preWithoutCode', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
    replacement(_content, node) {
      const code = (node.textContent ?? '').replace(/\n+$/, '');
      if (!code.trim()) return '';
      const fence = code.includes('```') ? '~~~' : '```';
      return `\n\n${fence}\n${code}\n${fence}\n\n`;
    },
  });

  service.addRule('link', {
    filter: (node) => node.nodeName === 'A' && (node as Element).hasAttribute('href'),
    replacement(content, node) {
      const text = content.trim();
      if (!text) return '';
      const href = resolveUrl((node as Element).getAttribute('href'), state.base);
      if (!href) return content;
      return `[${content.replace(/^\s+|\s+$/g, '')}](${destination(href)})`;
    },
  });

  service.addRule('image', {
    filter: 'img',
    replacement(_content, node) {
      const el = node as Element;
      const alt = (el.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim().replace(/[[\]]/g, '\\$&');
      const src = resolveUrl(el.getAttribute('src') ?? el.getAttribute('data-src'), state.base);
      if (!src) return alt;
      return `![${alt}](${destination(src)})`;
    },
  });

  service.addRule('tableCaption', { filter: ['caption', 'colgroup', 'col'], replacement: () => '' });
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });

  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement(content, node) {
      const table = closest(node, 'TABLE');
      if (!table || shape(table).layout) return `\n\n${content}\n\n`;
      const text = content
        .trim()
        .replace(/\s*\n+\s*/g, ' ')
        .replace(/(^|[^\\])\|/g, '$1\\|');
      return ` ${text} |${' |'.repeat(span(node as Element) - 1)}`;
    },
  });

  service.addRule('tableRow', {
    filter: 'tr',
    replacement(content, node) {
      const table = closest(node, 'TABLE');
      if (!table || shape(table).layout) return `\n\n${content}\n\n`;
      const { columns, firstRow } = shape(table);
      const present = cells(node as Element).reduce((n, c) => n + span(c), 0);
      const row = `|${content}${' |'.repeat(Math.max(0, columns - present))}\n`;
      return node === firstRow ? `${row}|${' --- |'.repeat(columns)}\n` : row;
    },
  });

  service.addRule('table', {
    filter: 'table',
    replacement(content, node) {
      const table = node as Element;
      if (shape(table).layout) return `\n\n${content}\n\n`;
      const caption = Array.from(table.children).find((c) => c.nodeName === 'CAPTION');
      const title = caption?.textContent?.replace(/\s+/g, ' ').trim();
      return `\n\n${title ? `${title}\n\n` : ''}${content.replace(/\n+$/, '')}\n\n`;
    },
  });

  return {
    /** Converts `root` (a DOM node) with links resolved against `base`. */
    convert(root: Element, base: string | undefined): string {
      // <source>/<track> are void elements Turndown keeps the whitespace around, which would indent
      // the image after them into a Markdown code block; they carry nothing to read.
      for (const tag of ['source', 'track']) for (const el of Array.from(root.getElementsByTagName(tag))) el.remove();
      state.base = base;
      // Turndown works on a deep clone of its input; this DOM is ours and discarded afterwards, so
      // let it work in place (cloning thousands of linkedom nodes is a tenth of a large page's time).
      const target = root as Element & { cloneNode(deep?: boolean): Node };
      target.cloneNode = () => root;
      try {
        return service
          .turndown(root as unknown as TurndownService.Node)
          .replace(/^[ \t]+$/gm, '')
          .replace(/\n{3,}/g, '\n\n')
          .trim();
      } finally {
        state.base = undefined;
        delete (target as { cloneNode?: unknown }).cloneNode;
      }
    },
  };
}
