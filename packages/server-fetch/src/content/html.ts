/// <reference path="../types/joplinGfm.d.ts" />
import { createTurndown, TASK_DONE, TASK_OPEN } from './markdown.js';

/** The reference's text when nothing readable is left (`extract_content_from_html`). */
export const SIMPLIFY_FAILED = '<error>Page failed to be simplified from HTML</error>';

export interface HtmlConversion {
  markdown: string;
  title: string | null;
}

export type HtmlConverter = (html: string, url: string | undefined) => Promise<HtmlConversion>;

/** Elements never worth reading when Readability finds no article and the whole body is used. */
const BOILERPLATE =
  'script, style, noscript, template, nav, header, footer, aside, form, iframe, svg, [role=navigation], [aria-hidden=true]';

function text(value: string | null | undefined): string | null {
  const t = value?.replace(/\s+/g, ' ').trim();
  return t ? t : null;
}

/**
 * Readability drops every `<input>`, so task-list checkboxes become ☑/☐ characters first; the
 * Markdown list rule turns them back into `[x]`/`[ ]`. (`getElementsByTagName` rather than a CSS
 * selector: on linkedom a selector is compiled and matched against every element of the page.)
 */
function markTaskCheckboxes(document: Document): void {
  for (const box of Array.from(document.getElementsByTagName('input'))) {
    if (box.getAttribute('type')?.toLowerCase() !== 'checkbox' || !box.closest('li')) continue;
    box.replaceWith(document.createTextNode(box.hasAttribute('checked') ? `${TASK_DONE} ` : `${TASK_OPEN} `));
  }
}

/** The page's `<base href>`, resolved against its URL (relative links are relative to it). */
function baseUrl(document: Document, url: string | undefined): string | undefined {
  const href = Array.from(document.getElementsByTagName('base'))
    .find((el) => el.hasAttribute('href'))
    ?.getAttribute('href');
  if (!href) return url;
  try {
    return new URL(href, url).href;
  } catch {
    return url;
  }
}

/** Body elements that never hold article text and that Readability or Turndown would drop anyway. */
const INERT = new Set(['SCRIPT', 'STYLE', 'LINK', 'TEMPLATE', 'svg', 'SVG']);
/** Elements laid out as blocks: whitespace-only text between two of them is never rendered. */
const BLOCK = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'CAPTION',
  'DD',
  'DETAILS',
  'DIALOG',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'TD',
  'TFOOT',
  'TH',
  'THEAD',
  'TR',
  'UL',
]);
const PRESERVE_SPACE = new Set(['PRE', 'TEXTAREA', 'LISTING', 'XMP', 'PLAINTEXT']);

function preClean(body: Element): void {
  const dead: Node[] = [];
  const isBlock = (node: Node | null, parent: Node) =>
    node ? node.nodeType === 1 && (BLOCK.has(node.nodeName) || INERT.has(node.nodeName)) : BLOCK.has(parent.nodeName);
  const walk = (parent: Node) => {
    let previous: Node | null = null;
    for (let node = parent.firstChild; node; previous = node, node = node.nextSibling) {
      if (node.nodeType === 8) dead.push(node);
      else if (node.nodeType === 3) {
        if (isBlock(previous, parent) && isBlock(node.nextSibling, parent) && !(node as Text).data.trim()) dead.push(node);
      } else if (node.nodeType === 1) {
        if (INERT.has(node.nodeName) && !(node.nodeName === 'SCRIPT' && /ld\+json/i.test((node as Element).getAttribute('type') ?? ''))) {
          dead.push(node);
        } else if (node.firstChild && !PRESERVE_SPACE.has(node.nodeName)) walk(node);
      }
    }
  };
  walk(body);
  for (const node of dead) (node as ChildNode).remove();
}

type ParseHtml = (html: string) => { document: Document };

/**
 * The page as a document with an `<html>` root. linkedom builds only the tree the source spells out:
 * a body without any element (`plain words`, `<!-- c -->`) gives a document with no document
 * element, whose `title` and `body` throw, and a fragment (`<p>…</p>`) becomes the root element with
 * an empty `<body>` inside it. A browser's parser (and the reference's, JSDOM) puts such content in
 * `<html><body>`; so does this, by parsing again inside the shell the source lacks.
 */
function parseDocument(parseHTML: ParseHtml, html: string): Document {
  const { document } = parseHTML(html);
  if (document.documentElement?.localName === 'html') return document;
  const shell = /<(?:head|body)[\s/>]/i.test(html) ? `<html>${html}</html>` : `<html><head></head><body>${html}</body></html>`;
  return parseHTML(shell).document;
}

/**
 * HTML → Markdown: linkedom parses, Mozilla Readability extracts the article (dropping navigation,
 * ads and footers), Turndown writes Markdown. When Readability finds nothing, the body minus
 * obvious chrome is converted instead; an empty page yields the reference's error text.
 *
 * The three libraries load on first use so that starting the server does not pay for them.
 */
export function createHtmlConverter(): HtmlConverter {
  let loaded:
    | Promise<{
        parseHTML: ParseHtml;
        Readability: typeof import('@mozilla/readability').Readability;
        turndown: ReturnType<typeof createTurndown>;
      }>
    | undefined;

  function load() {
    loaded ??= Promise.all([
      import('linkedom'),
      import('@mozilla/readability'),
      import('turndown'),
      import('@joplin/turndown-plugin-gfm'),
    ]).then(([linkedom, readability, turndown, gfm]) => ({
      parseHTML: linkedom.parseHTML as unknown as ParseHtml,
      Readability: readability.Readability,
      turndown: createTurndown(turndown.default, gfm),
    }));
    return loaded;
  }

  return async (html, url) => {
    const { parseHTML, Readability, turndown } = await load();
    if (!html.trim()) return { markdown: SIMPLIFY_FAILED, title: null };
    const document = parseDocument(parseHTML, html);
    const base = baseUrl(document, url);
    let pageTitle: string | null = null;
    let article: ReturnType<InstanceType<typeof Readability<Element>>['parse']> = null;
    try {
      pageTitle = text(document.title);
      markTaskCheckboxes(document);
      if (document.body) preClean(document.body);
      // Classes are kept so code blocks keep their `language-*` (Turndown ignores the others).
      article = new Readability<Element>(document, { serializer: (node) => node as Element, keepClasses: true }).parse();
    } catch {
      // Readability gives up on some malformed documents; the body fallback below handles them.
      article = null;
    }
    const title = text(article?.title) ?? pageTitle;
    if (article?.content && text(article.textContent)) {
      return { markdown: turndown.convert(article.content, base) || SIMPLIFY_FAILED, title };
    }
    // Readability mutated the first parse; start again from the source.
    const fresh = parseDocument(parseHTML, html);
    const body = fresh.body ?? fresh.documentElement;
    if (!body) return { markdown: SIMPLIFY_FAILED, title };
    for (const el of Array.from(body.querySelectorAll(BOILERPLATE))) el.remove();
    const markdown = text(body.textContent) ? turndown.convert(body, base) : '';
    return { markdown: markdown || SIMPLIFY_FAILED, title };
  };
}
