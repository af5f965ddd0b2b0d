// Audit → Account links: every subscription the service (for a proven request, with
// OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS on) or an operator (offer-signer appstore link) asked
// Apple to attribute to a user with Set App Account Token, and how it ended. From
// GET /v1/audit/app-account-token-links.

import { api } from './api.js';
import { h, replace, field, table } from './dom.js';
import { pageSummary, pager } from './audit-list.js';
import { dateTime } from './format.js';

const OUTCOMES = { linked: ['Linked', 'badge-live'], refused: ['Refused', 'badge-disabled'], failed: ['Failed', 'badge-disabled'] };

function apiFilter(query) {
  const filter = {};
  for (const name of ['bundleId', 'originalTransactionId']) if (query.get(name)) filter[name] = query.get(name);
  return filter;
}

export async function renderLinks(body, { query, navigate, href }) {
  const inputs = {};
  const form = h('form', { class: 'filters', onsubmit: event => {
    event.preventDefault();
    const next = {};
    for (const [name, input] of Object.entries(inputs)) if (input.value.trim()) next[name] = input.value.trim();
    navigate(['audit', 'links'], next);
  } },
  h('h2', { class: 'visually-hidden' }, 'Filters'),
  h('p', { class: 'muted' }, 'Subscriptions without an app account token that the service, or an operator, asked the App Store to attribute to a user. A token already set is never replaced, except by an operator with --force.'),
  h('div', { class: 'filter-grid' },
    field({ id: 'link-originalTransactionId', label: 'Subscription (original transaction ID)', control: inputs.originalTransactionId = h('input', { type: 'text', value: query.get('originalTransactionId') || '', autocomplete: 'off', spellcheck: 'false', inputmode: 'numeric' }) }),
    field({ id: 'link-bundleId', label: 'App (bundle ID)', control: inputs.bundleId = h('input', { type: 'text', value: query.get('bundleId') || '', autocomplete: 'off', spellcheck: 'false' }) })),
  h('div', { class: 'actions' },
    h('button', { type: 'submit', class: 'button button-primary' }, 'Apply filters'),
    h('a', { class: 'button button-quiet', href: href(['audit', 'links']) }, 'Clear')));
  const results = h('div', { class: 'results' }, h('p', { class: 'loading' }, 'Loading…'));
  body.append(form, results);
  let page;
  try {
    page = await api('GET', '/v1/audit/app-account-token-links', { params: { ...apiFilter(query), limit: 100, cursor: query.get('cursor') } });
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    return;
  }
  replace(results,
    pageSummary(page.items.length, 'link', query),
    table({ caption: 'Account links', rows: page.items, empty: 'No link matches these filters.',
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
      ] }),
    pager({ href, route: ['audit', 'links'], query, next: page.nextCursor }));
}
