import { describe, expect, it } from 'vitest';
import { decodeBody } from '../src/content/decode.js';
import { createHtmlConverter, SIMPLIFY_FAILED } from '../src/content/html.js';
import { codePointLength, paginate, sliceCodePoints } from '../src/paging.js';

const convert = createHtmlConverter();

/** Wraps `body` in an article long enough for Readability to take it as the content. */
async function md(body: string, url = 'https://example.com/docs/page.html'): Promise<string> {
  const filler = '<p>This paragraph is here so that the article is long enough, with commas, and plenty of words to score well.</p>';
  const html = `<html><head><title>Doc</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article>${filler}${body}${filler}</article><footer>© 2026 Example Corp. All rights reserved.</footer></body></html>`;
  return (await convert(html, url)).markdown;
}

describe('HTML → Markdown', () => {
  it('writes ATX headings and paragraphs', async () => {
    const out = await md(
      '<h2>Section</h2><p>First paragraph.</p><h3>Sub</h3><p>Second, with <strong>bold</strong> and <em>emphasis</em>.</p>',
    );
    expect(out).toContain('## Section\n\nFirst paragraph.\n\n### Sub\n\nSecond, with **bold** and _emphasis_.');
  });
  it('resolves links and images against the page URL (and <base href>)', async () => {
    const out = await md('<p>See <a href="../api/ref.html#x">the reference</a> and <img src="/img/a b.png" alt="A diagram"></p>');
    expect(out).toContain('[the reference](https://example.com/api/ref.html#x)');
    expect(out).toContain('![A diagram](https://example.com/img/a%20b.png)');
    const based = await convert(
      '<html><head><base href="https://cdn.example.net/root/"></head><body><article><p>Long enough text for an article, really, with words. <a href="x.html">x</a></p></article></body></html>',
      'https://example.com/',
    );
    expect(based.markdown).toContain('[x](https://cdn.example.net/root/x.html)');
  });
  it('drops data: images and javascript: links but keeps their text', async () => {
    const out = await md('<p><img src="data:image/png;base64,AAAA" alt="inline pic"> <a href="javascript:alert(1)">click</a></p>');
    expect(out).toContain('inline pic');
    expect(out).toContain('click');
    expect(out).not.toContain('data:image');
    expect(out).not.toContain('javascript:');
  });
  it('writes nested and ordered lists with CommonMark indentation, and task lists', async () => {
    const out = await md(
      '<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul><ol start="3"><li>three</li><li>four</li></ol><ul><li><input type="checkbox" checked> done</li><li><input type="checkbox"> todo</li></ul>',
    );
    expect(out).toContain('- one\n  - nested\n- two');
    expect(out).toContain('3. three\n4. four');
    expect(out).toContain('- [x] done\n- [ ] todo');
  });
  it('fences code blocks, with the language when the page names it', async () => {
    const out = await md(
      '<pre><code class="language-ts">const a: number = 1;\nif (a) {\n  run();\n}</code></pre><pre>plain   pre\n  kept</pre>',
    );
    expect(out).toContain('```ts\nconst a: number = 1;\nif (a) {\n  run();\n}\n```');
    expect(out).toContain('```\nplain   pre\n  kept\n```');
  });
  it('writes GFM tables, with or without a header section, with colspan and escaped pipes', async () => {
    const out = await md(
      '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td colspan="2">wide</td></tr></tbody></table>' +
        '<table><tr><td>k1</td><td>v1</td></tr><tr><td>k2</td><td>v2</td></tr></table>',
    );
    expect(out).toContain('| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n| wide | |');
    expect(out).toContain('| k1 | v1 |\n| --- | --- |\n| k2 | v2 |');
  });
  it('renders layout tables (tables of tables) as blocks', async () => {
    const out = await md(
      '<table><tr><td><table><tr><th>In</th></tr><tr><td>ner</td></tr></table></td><td><p>Side text.</p></td></tr></table>',
    );
    expect(out).toContain('| In |\n| --- |\n| ner |');
    expect(out).toContain('Side text.');
    expect(out).not.toMatch(/\| \| In/);
  });
  it('cleans the page before Readability without losing meaningful whitespace or JSON-LD', async () => {
    const out = await md(
      '<p><a href="/a">one</a> <b>two</b>\n<i>three</i></p><!-- a comment --><template><p>Template text.</p></template>' +
        '<svg><text>Icon label</text></svg><pre>line 1\n\n  <span>indented</span>\n</pre>\n<div>\n  <p>Block one.</p>\n  <p>Block two.</p>\n</div>' +
        '<ol start="3">\n  <li>third</li>\n  <li>fourth</li>\n</ol>',
    );
    expect(out).toContain('[one](https://example.com/a) **two** _three_');
    expect(out).toContain('```\nline 1\n\n  indented\n```');
    expect(out).toContain('Block one.\n\nBlock two.');
    expect(out).toContain('3. third\n4. fourth');
    expect(out).not.toContain('a comment');
    expect(out).not.toContain('Template text');
    expect(out).not.toContain('Icon label');
    const ld = await convert(
      '<html><head><title>Site | Page</title></head><body><script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"The JSON-LD headline"}</script><article><p>Long enough text for an article, really, with words, commas, and more words to score.</p></article></body></html>',
      'https://example.com/',
    );
    expect(ld.title).toBe('The JSON-LD headline');
  });
  it('leaves out navigation and footers (Readability)', async () => {
    const out = await md('<p>Body.</p>');
    expect(out).not.toContain('About');
    expect(out).not.toContain('All rights reserved');
  });
  it('keeps the text of a tiny page, and its title', async () => {
    const { markdown, title } = await convert(
      '<html><head><title>Tiny</title></head><body><div>Just a line.</div></body></html>',
      undefined,
    );
    expect(markdown).toBe('Just a line.');
    expect(title).toBe('Tiny');
  });
  it('gives the reference error text for a page without text', async () => {
    expect((await convert('<html><body><script>x()</script></body></html>', undefined)).markdown).toBe(SIMPLIFY_FAILED);
    expect((await convert('   ', undefined)).markdown).toBe(SIMPLIFY_FAILED);
  });
});

describe('paging helpers', () => {
  it('counts and slices code points', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(sliceCodePoints('a😀b😀c', 1, 3)).toBe('😀b😀');
    expect(sliceCodePoints('abc', 5, 2)).toBe('');
  });
  it('paginates with the reference notices', () => {
    expect(paginate('abcdef', 0, 4)).toEqual({
      text: 'abcd\n\n<error>Content truncated. Call the fetch tool with a start_index of 4 to get more content.</error>',
      totalLength: 6,
      nextStartIndex: 4,
    });
    expect(paginate('abcdef', 4, 4)).toEqual({ text: 'ef', totalLength: 6, nextStartIndex: null });
    expect(paginate('', 0, 4).text).toBe('<error>No more content available.</error>');
  });
});

describe('decoding', () => {
  it('prefers the header charset, then meta, then detection', async () => {
    const latin1 = Buffer.from('<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>', 'latin1');
    expect((await decodeBody(latin1, 'text/html; charset=iso-8859-1')).source).toBe('header');
    const meta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]);
    expect(await decodeBody(meta, 'text/html')).toMatchObject({ source: 'meta', encoding: 'windows-1252' });
    expect(await decodeBody(Buffer.from('plain ascii and ünïcode'), 'text/plain')).toEqual({
      text: 'plain ascii and ünïcode',
      encoding: 'utf-8',
      source: 'utf8',
    });
  });
});
