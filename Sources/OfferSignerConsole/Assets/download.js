// Files the browser saves: text made here (a CSV the service answered), never a URL with a token.
import { h } from './dom.js';

/** `2026-11-30-14-05-09`, the UTC time for a file name. */
export function fileTime(date = new Date()) {
  return date.toISOString().slice(0, 19).replace(/[:T]/g, '-');
}

/** A file name part from any text: characters other than letters, digits, `.`, `_` and `-` become `_`. */
export function fileSafe(text) {
  return String(text).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'file';
}

/** Has the browser save `parts` (strings or Blobs) as `name`. */
export function saveFile(name, parts, type) {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
