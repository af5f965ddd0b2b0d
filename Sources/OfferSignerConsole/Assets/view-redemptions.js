// Audit → Redemptions: every redemption of a promotional or win-back offer found in the App
// Store history, with the signature that explains it — or none, which is a signer the service
// does not know about or a leaked key. From GET /v1/audit/redemptions.

import { h, field } from './dom.js';
import { downloadPagedCSV, pagedList } from './audit-list.js';
import { dateTime } from './format.js';

const OUTCOMES = { retained: 'Retained', churned: 'Churned', refunded: 'Refunded', inOffer: 'In the offer' };
const MATCHED = [['', 'All'], ['false', 'Not signed here'], ['true', 'Signed here']];

function apiFilter(query) {
  const filter = {};
  for (const name of ['offerId', 'bundleId', 'matched']) if (query.get(name)) filter[name] = query.get(name);
  return filter;
}

export function renderRedemptions(body, context) {
  const { query, href } = context;
  const inputs = {};
  return pagedList(body, context, {
    route: ['audit', 'redemptions'], inputs,
    note: 'Redemptions seen in the App Store history. One that no signature issued here explains was signed by someone else: another signer, a leaked key or a test build.',
    fields: [
      field({ id: 'redemption-offerId', label: 'Offer ID', control: inputs.offerId = h('input', { type: 'text', value: query.get('offerId') || '', autocomplete: 'off', spellcheck: 'false' }) }),
      field({ id: 'redemption-bundleId', label: 'App (bundle ID)', control: inputs.bundleId = h('input', { type: 'text', value: query.get('bundleId') || '', autocomplete: 'off', spellcheck: 'false' }) }),
      field({ id: 'redemption-matched', label: 'Signature', control: inputs.matched = h('select', null, MATCHED.map(([value, text]) =>
        h('option', { value, selected: (query.get('matched') || '') === value }, text))) })],
    actions: h('button', { type: 'button', class: 'button', id: 'download-redemptions-csv', onclick: event => downloadCSV(query, event.currentTarget) }, 'Download CSV'),
    path: '/v1/audit/redemptions', params: { ...apiFilter(query), limit: 100 }, noun: 'redemption', next: page => page.next,
    table: { caption: 'Redemptions', empty: 'No redemption matches these filters.',
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
      ] },
  });
}

/** Every redemption of the filter as one CSV file (page after page), downloaded by the browser. */
function downloadCSV(query, button) {
  return downloadPagedCSV({ path: '/v1/audit/redemptions', params: apiFilter(query), name: 'redemptions', noun: 'redemptions', button });
}

