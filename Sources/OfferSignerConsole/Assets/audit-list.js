import { api } from './api.js';
import { h, replace, table, toast } from './dom.js';
import { number } from './format.js';
import { saveFile, fileTime } from './download.js';

// What the audit's paged lists (signature log, rule changes, redemptions, account links) share.

/**
 * A filtered, paged list of `route` in `body`: the filter form (`fields`, whose controls are the
 * values of `inputs`, a `note` above them, `actions` after Apply and Clear), then the page of
 * `path` the query asks for (`params` and its cursor): how many `noun`s it holds, the table
 * (`table`'s options, the page's items as rows) and the pager (`next` reads the page's cursor).
 */
export async function pagedList(body, { query, navigate, href }, { route, note, inputs, fields, actions, path, params, noun, table: options,
  next = page => page.nextCursor }) {
  const form = h('form', { class: 'filters', onsubmit: event => {
    event.preventDefault();
    const filters = {};
    for (const [name, input] of Object.entries(inputs)) if (input.value.trim()) filters[name] = input.value.trim();
    navigate(route, filters);
  } },
  h('h2', { class: 'visually-hidden' }, 'Filters'),
  note ? h('p', { class: 'muted' }, note) : null,
  h('div', { class: 'filter-grid' }, fields),
  h('div', { class: 'actions' },
    h('button', { type: 'submit', class: 'button button-primary' }, 'Apply filters'),
    h('a', { class: 'button button-quiet', href: href(route) }, 'Clear'),
    actions));
  const results = h('div', { class: 'results' }, h('p', { class: 'loading' }, 'Loading…'));
  body.append(form, results);
  let page;
  try {
    page = await api('GET', path, { params: { ...params, cursor: query.get('cursor') } });
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    return;
  }
  replace(results,
    pageSummary(page.items.length, noun, query),
    table({ ...options, rows: page.items }),
    pager({ href, route, query, next: next(page) }));
}

/** The line above a page: how many `noun`s (singular) it holds, and whether it is not the first. */
function pageSummary(count, noun, query) {
  return h('p', { class: 'summary', role: 'status' },
    `${number(count)} ${noun}${count === 1 ? '' : 's'} on this page${query.get('cursor') ? ' (not the first page)' : ''}.`);
}

/**
 * First page and Next page links of `route` with `filters` (by default the query's, less the
 * cursor); `next` is the page's cursor.
 */
export function pager({ href, route, query, next, filters = Object.fromEntries([...query.entries()].filter(([name]) => name !== 'cursor')) }) {
  return h('div', { class: 'pager' },
    query.get('cursor') ? h('a', { class: 'button button-quiet', href: href(route, filters) }, 'First page') : null,
    next ? h('a', { class: 'button', href: href(route, { ...filters, cursor: next }) }, 'Next page') : null);
}

/**
 * Every row of a paged audit list (`path` with `params`) as one CSV file, read a thousand rows
 * a page following `X-Next-Cursor` (at most 200 pages), and downloaded by the browser as
 * `<name>-<time>.csv`. `noun` names the rows in the toast; `button` is disabled meanwhile.
 */
export async function downloadPagedCSV({ path, params, name, noun, button }) {
  button.disabled = true;
  const original = button.textContent;
  button.textContent = 'Preparing CSV…';
  try {
    const parts = [];
    let cursor, rows = 0;
    for (let page = 0; page < 200; page += 1) {
      const response = await api('GET', path, { params: { ...params, limit: 1000, cursor }, accept: 'text/csv', raw: true });
      const text = await response.text();
      const lines = text.split('\r\n');
      parts.push(page === 0 ? text : lines.slice(1).join('\r\n'));
      rows += Math.max(0, lines.filter(Boolean).length - 1);
      cursor = response.headers.get('X-Next-Cursor');
      if (!cursor) break;
    }
    saveFile(`${name}-${fileTime()}.csv`, parts, 'text/csv');
    toast(`Downloaded ${number(rows)} ${noun} as CSV.`, 'success');
  } catch (error) {
    if (error.status !== 401) toast(`The CSV could not be made: ${error.message}`, 'error');
  } finally {
    button.disabled = false;
    button.textContent = original;
  }
}
