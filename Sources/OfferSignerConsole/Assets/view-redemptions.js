// Audit → Redemptions: every redemption of a promotional or win-back offer found in the App
// Store history, with the signature that explains it — or none, which is a signer the service
// does not know about or a leaked key. From GET /v1/audit/redemptions.

import { api } from './api.js';
import { h, replace, field, table } from './dom.js';
import { downloadPagedCSV, pageSummary, pager } from './audit-list.js';
import { number, dateTime } from './format.js';

const OUTCOMES = { retained: 'Retained', churned: 'Churned', refunded: 'Refunded', inOffer: 'In the offer' };
const MATCHED = [['', 'All'], ['false', 'Not signed here'], ['true', 'Signed here']];

function apiFilter(query) {
  const filter = {};
  for (const name of ['offerId', 'bundleId', 'matched']) if (query.get(name)) filter[name] = query.get(name);
  return filter;
}

export async function renderRedemptions(body, { query, navigate, href }) {
  const inputs = {};
  const form = h('form', { class: 'filters', onsubmit: event => {
    event.preventDefault();
    const next = {};
    for (const [name, input] of Object.entries(inputs)) if (input.value.trim()) next[name] = input.value.trim();
    navigate(['audit', 'redemptions'], next);
  } },
  h('h2', { class: 'visually-hidden' }, 'Filters'),
  h('p', { class: 'muted' }, 'Redemptions seen in the App Store history. One that no signature issued here explains was signed by someone else: another signer, a leaked key or a test build.'),
  h('div', { class: 'filter-grid' },
    field({ id: 'redemption-offerId', label: 'Offer ID', control: inputs.offerId = h('input', { type: 'text', value: query.get('offerId') || '', autocomplete: 'off', spellcheck: 'false' }) }),
    field({ id: 'redemption-bundleId', label: 'App (bundle ID)', control: inputs.bundleId = h('input', { type: 'text', value: query.get('bundleId') || '', autocomplete: 'off', spellcheck: 'false' }) }),
    field({ id: 'redemption-matched', label: 'Signature', control: inputs.matched = h('select', null, MATCHED.map(([value, text]) =>
      h('option', { value, selected: (query.get('matched') || '') === value }, text))) })),
  h('div', { class: 'actions' },
    h('button', { type: 'submit', class: 'button button-primary' }, 'Apply filters'),
    h('a', { class: 'button button-quiet', href: href(['audit', 'redemptions']) }, 'Clear'),
    h('button', { type: 'button', class: 'button', id: 'download-redemptions-csv', onclick: event => downloadCSV(query, event.currentTarget) }, 'Download CSV')));
  const results = h('div', { class: 'results' }, h('p', { class: 'loading' }, 'Loading…'));
  body.append(form, results);
  let page;
  try {
    page = await api('GET', '/v1/audit/redemptions', { params: { ...apiFilter(query), limit: 100, cursor: query.get('cursor') } });
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    return;
  }
  replace(results,
    pageSummary(page.items.length, 'redemption', query),
    table({ caption: 'Redemptions', rows: page.items, empty: 'No redemption matches these filters.',
      columns: [
        { label: 'Redeemed', class: 'nowrap', value: item => dateTime(item.purchaseDate) },
        { label: 'Offer', value: item => item.offerId || '—' },
        { label: 'User', class: 'col-user', value: item => item.appAccountToken || `subscription ${item.originalTransactionId}` },
        { label: 'Transaction', class: 'nowrap', value: item => item.transactionId },
        { label: 'Signature', class: 'col-signature', value: item => item.matched
          ? h('a', { href: href(['audit', 'record', item.signatureNonce]) }, 'Signed here')
          : h('span', { class: ['badge', 'badge-disabled'] }, 'Not signed here') },
        { label: 'Outcome', value: item => OUTCOMES[item.outcome] || item.outcome },
        { label: 'History', value: item => item.environment },
      ] }),
    pager({ href, route: ['audit', 'redemptions'], query, next: page.next }));
}

/** Every redemption of the filter as one CSV file (page after page), downloaded by the browser. */
function downloadCSV(query, button) {
  return downloadPagedCSV({ path: '/v1/audit/redemptions', params: apiFilter(query), name: 'redemptions', noun: 'redemptions', button });
}

