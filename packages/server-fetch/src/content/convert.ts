import { rawContentPrefix } from '../constants.js';
import { formatBytes } from '../format.js';
import { decodeBody } from './decode.js';
import type { HtmlConverter } from './html.js';
import { PdfError, pdfToText } from './pdf.js';

export interface Converted {
  /** The text that is paginated. */
  content: string;
  /** Put before `Contents of <url>:` (the reference's raw-content notice), or empty. */
  prefix: string;
  title: string | null;
  kind: 'html' | 'json' | 'text' | 'pdf';
}

/** A response that cannot become text (binary, unreadable PDF); the message is for the model. */
export class UnconvertibleError extends Error {
  override readonly name = 'UnconvertibleError';
}

const TEXTUAL_APPLICATION = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/typescript',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/x-sh',
  'application/x-httpd-php',
  'application/sql',
  'application/graphql',
  'application/x-www-form-urlencoded',
  'application/rss+xml',
  'application/atom+xml',
  'application/xhtml+xml',
  'application/manifest+json',
  'application/csv',
  'application/x-ndjson',
]);

export function mimeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isJson(mime: string): boolean {
  return mime === 'application/json' || mime.endsWith('+json');
}

function isTextualMime(mime: string): boolean {
  return mime.startsWith('text/') || TEXTUAL_APPLICATION.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml');
}

function isPdf(mime: string, bytes: Uint8Array): boolean {
  if (mime === 'application/pdf' || mime === 'application/x-pdf') return true;
  const magic = bytes.length >= 5 && bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 && bytes[4] === 0x2d;
  return magic && (mime === '' || mime === 'application/octet-stream' || mime === 'binary/octet-stream');
}

/** Heuristic for bodies without a telling type: NUL bytes or many control characters mean binary. */
function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  if (sample.length === 0) return false;
  let control = 0;
  for (const b of sample) {
    if (b === 0) return true;
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) control++;
  }
  return control / sample.length > 0.1;
}

function binaryRefusal(contentType: string, size: number): UnconvertibleError {
  const type = contentType || 'an unlabelled type';
  return new UnconvertibleError(
    `the response is ${type} (${formatBytes(size)}), which is binary and cannot be shown as text; only HTML, text, JSON, XML and PDF are converted.`,
  );
}

/**
 * The response as text for the model, by content type:
 * - HTML (`text/html`, XHTML, no type at all, or `<html` near the start, as the reference decides)
 *   → Markdown unless `raw`;
 * - PDF → its text;
 * - JSON and other text types → as served, after the reference's "cannot be simplified" prefix;
 * - anything else binary → `UnconvertibleError` stating type and size.
 */
export async function convertBody(
  body: Uint8Array,
  contentType: string,
  url: string,
  { raw, html }: { raw: boolean; html: HtmlConverter },
): Promise<Converted> {
  const mime = mimeOf(contentType);
  if (isPdf(mime, body)) {
    try {
      const pdf = await pdfToText(body);
      return { content: pdf.text, prefix: '', title: pdf.title, kind: 'pdf' };
    } catch (error) {
      if (error instanceof PdfError) throw new UnconvertibleError(error.message);
      throw error;
    }
  }
  const htmlType = mime === 'text/html' || mime === 'application/xhtml+xml';
  const textual = htmlType || isTextualMime(mime);
  if (!textual && looksBinary(body)) throw binaryRefusal(contentType, body.length);
  if (mime && !textual && !mime.startsWith('application/') && mime !== 'unknown/unknown') {
    // image/*, audio/*, video/*, font/*, model/* …: binary by definition, whatever the bytes look like.
    throw binaryRefusal(contentType, body.length);
  }
  const { text } = await decodeBody(body, contentType);
  const isHtml = text.slice(0, 100).includes('<html') || contentType.includes('text/html') || htmlType || !contentType;
  if (isHtml && !raw) {
    try {
      const { markdown, title } = await html(text, url);
      return { content: markdown, prefix: '', title, kind: 'html' };
    } catch (error) {
      // The DOM libraries recurse over the tree: thousands of nested elements exhaust the stack.
      if (error instanceof RangeError && /call stack/i.test(error.message)) {
        throw new UnconvertibleError('the page is nested too deeply to be converted to Markdown (raw: true returns it unconverted)');
      }
      throw error;
    }
  }
  // JSON and every other text as served (the reference does not reformat JSON either).
  return { content: text, prefix: rawContentPrefix(contentType), title: null, kind: isJson(mime) ? 'json' : 'text' };
}
