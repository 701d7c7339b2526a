/** Keeps a database password out of every log line and error message. */

/** `url` with its password (if any) replaced by `***`; a string that is not a URL is returned as `<database URL>`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<database URL>';
  }
}

/** A function that replaces the URL's password (as written and decoded) in any text. */
export function passwordRedactor(url: string | undefined): (text: string) => string {
  let secrets: string[] = [];
  try {
    const raw = url ? new URL(url).password : '';
    if (raw) secrets = [...new Set([raw, decodeURIComponent(raw)])].filter((s) => s.length > 0);
  } catch {}
  if (url) secrets.push(url);
  return (text) => {
    let out = text;
    for (const secret of secrets.sort((a, b) => b.length - a.length)) out = out.split(secret).join(secret === url ? redactUrl(url) : '***');
    return out;
  };
}
