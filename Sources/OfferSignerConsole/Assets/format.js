// Formatting for people: numbers, dates (always UTC, labelled so), durations.

const numberFormat = new Intl.NumberFormat('en-US');

export function number(value) {
  return value === null || value === undefined ? '—' : numberFormat.format(value);
}

export function percent(part, whole) {
  if (!whole) return '—';
  return `${(100 * part / whole).toFixed(part === whole || part === 0 ? 0 : 1)}%`;
}

function toDate(value) {
  if (value === null || value === undefined || value === '') return null;
  const date = typeof value === 'number' ? new Date(value) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `2026-11-30 14:05 UTC` */
export function dateTime(value) {
  const date = toDate(value);
  if (!date) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `2026-11-30` */
export function day(value) {
  const date = toDate(value);
  return date ? date.toISOString().slice(0, 10) : '—';
}

/** `Nov 30` (UTC) */
export function shortDay(value) {
  const date = toDate(value);
  if (!date) return '';
  return date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** `3 days ago`, `in 2 hours` */
export function relative(value, now = Date.now()) {
  const date = toDate(value);
  if (!date) return '';
  const seconds = Math.round((date.getTime() - now) / 1000);
  const units = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]];
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

export function plural(count, one, many = `${one}s`) {
  return `${number(count)} ${count === 1 ? one : many}`;
}

/** `YYYY-MM-DD` of today (UTC) plus `offset` days. */
export function isoDay(offset = 0, from = Date.now()) {
  return new Date(from + offset * 86400000).toISOString().slice(0, 10);
}
