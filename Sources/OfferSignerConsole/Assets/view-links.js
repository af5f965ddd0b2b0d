// Audit → Account links: every subscription the service (for a proven request, with
// OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS on) or an operator (offer-signer appstore link) asked
// Apple to attribute to a user with Set App Account Token, and how it ended. From
// GET /v1/audit/app-account-token-links.

import { h, field } from './dom.js';
import { pagedList } from './audit-list.js';
import { dateTime } from './format.js';

const OUTCOMES = { linked: ['Linked', 'badge-live'], refused: ['Refused', 'badge-disabled'], failed: ['Failed', 'badge-disabled'] };

function apiFilter(query) {
  const filter = {};
  for (const name of ['bundleId', 'originalTransactionId']) if (query.get(name)) filter[name] = query.get(name);
  return filter;
}

export function renderLinks(body, context) {
  const { query } = context;
  const inputs = {};
  return pagedList(body, context, {
    route: ['audit', 'links'], inputs,
    note: 'Subscriptions without an app account token that the service, or an operator, asked the App Store to attribute to a user. A token already set is never replaced, except by an operator with --force.',
    fields: [
      field({ id: 'link-originalTransactionId', label: 'Subscription (original transaction ID)', control: inputs.originalTransactionId = h('input', { type: 'text', value: query.get('originalTransactionId') || '', autocomplete: 'off', spellcheck: 'false', inputmode: 'numeric' }) }),
      field({ id: 'link-bundleId', label: 'App (bundle ID)', control: inputs.bundleId = h('input', { type: 'text', value: query.get('bundleId') || '', autocomplete: 'off', spellcheck: 'false' }) })],
    path: '/v1/audit/app-account-token-links', params: { ...apiFilter(query), limit: 100 }, noun: 'link',
    table: { caption: 'Account links', empty: 'No link matches these filters.',
      columns: [
        { label: 'When', class: 'nowrap', value: item => dateTime(item.at) },
        { label: 'Subscription', class: 'nowrap', value: item => item.originalTransactionId },
        { label: 'User', class: 'col-user', value: item => item.appAccountToken },
        { label: 'Outcome', class: 'col-outcome', value: item => {
          const [text, badge] = OUTCOMES[item.outcome] || [item.outcome, 'badge-ended'];
          return h('span', { class: ['badge', badge] }, text);
        } },
        { label: 'Token found', class: 'col-user', value: item => item.existingToken || '—' },
        { label: 'Asked by', value: item => item.forced ? `${item.actor} (forced)` : item.actor },
        { label: 'Attempts', class: 'nowrap', value: item => String(item.attempts) },
        { label: 'Why', value: item => item.reason || '—' },
        { label: 'History', value: item => item.environment },
      ] },
  });
}
