import { api } from './api.js';
import { h, replace, table } from './dom.js';
import { number, relative, dateTime } from './format.js';
import { offerState, STATE_HELP } from './offer-fields.js';

export function stateBadge(state) {
  return h('span', { class: ['badge', `badge-${state}`], title: STATE_HELP[state] }, state);
}

export async function renderOffers(main, { me, href, query }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'Offers'), h('p', { class: 'loading' }, 'Loading offers…')));
  const [list, stats] = await Promise.all([
    api('GET', '/v1/admin/offers'),
    api('GET', '/v1/stats/offers').catch(() => ({ offers: [] })),
  ]);
  const counts = new Map(stats.offers.map(o => [`${o.bundleId}\u0000${o.offerId}`, o]));
  const now = Date.now();
  const offers = list.offers.map(rule => ({
    rule, state: offerState(rule, now), stats: counts.get(`${rule.bundleId}\u0000${rule.offerId}`) || {},
  }));
  const search = h('input', { type: 'search', value: query.get('q') || '', placeholder: 'Offer or product ID' });
  const stateSelect = h('select', null,
    h('option', { value: '' }, 'All states'),
    ['live', 'scheduled', 'ended', 'disabled'].map(state => h('option', { value: state, selected: query.get('state') === state }, state)));
  const results = h('div', { class: 'results' });
  const summary = h('p', { class: 'summary', role: 'status' });
  const multiApp = (me.apps || []).length > 1;

  function draw() {
    const text = search.value.trim().toLowerCase();
    const shown = offers.filter(({ rule, state }) =>
      (!stateSelect.value || state === stateSelect.value)
      && (!text || rule.offerId.toLowerCase().includes(text) || rule.productIds.some(p => p.toLowerCase().includes(text))));
    const live = offers.filter(o => o.state === 'live').length;
    summary.textContent = `${number(offers.length)} offers, ${number(live)} live${shown.length !== offers.length ? ` · ${number(shown.length)} shown` : ''}`;
    replace(results, table({
      caption: 'Offers',
      empty: offers.length ? 'No offer matches the filter.' : 'No offers yet. Create the first one.',
      rows: shown.sort((a, b) => b.rule.priority - a.rule.priority || a.rule.offerId.localeCompare(b.rule.offerId)),
      onRowClick: ({ rule }) => href(['offers', 'edit', rule.offerId], multiApp ? { bundleId: rule.bundleId } : undefined),
      rowLabel: ({ rule }) => `Edit offer ${rule.offerId}`,
      columns: [
        { label: 'Offer', class: 'col-id', value: ({ rule }) => rule.offerId },
        multiApp ? { label: 'App', value: ({ rule }) => rule.bundleId } : null,
        { label: 'Products', class: 'col-products', value: ({ rule }) => h('ul', { class: 'plain' }, rule.productIds.map(p => h('li', null, p))) },
        { label: 'State', value: ({ state }) => stateBadge(state) },
        { label: 'Priority', class: 'num', value: ({ rule }) => number(rule.priority) },
        { label: 'Signatures 24 h', class: 'num', value: ({ stats }) => number(stats.signaturesLast24h ?? 0) },
        { label: 'Signatures 7 days', class: 'num', value: ({ stats }) => number(stats.signaturesLast7d ?? 0) },
        { label: 'Updated', value: ({ rule }) => h('time', { datetime: rule.updatedAt, title: dateTime(rule.updatedAt) }, relative(rule.updatedAt)) },
      ].filter(Boolean),
    }));
  }
  search.addEventListener('input', draw);
  stateSelect.addEventListener('change', draw);

  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', null, 'Offers'),
      h('a', { class: 'button button-primary', href: href(['offers', 'new']) }, 'New offer')),
    h('p', { class: 'lead' }, 'Promotional offers the service signs, with who may get them. Select an offer to edit it, simulate a change or read its history.'),
    h('div', { class: 'toolbar', role: 'search' },
      h('div', { class: 'field field-inline' }, h('label', { for: 'offer-search' }, 'Search'), Object.assign(search, { id: 'offer-search' })),
      h('div', { class: 'field field-inline' }, h('label', { for: 'offer-state' }, 'State'), Object.assign(stateSelect, { id: 'offer-state' }))),
    summary,
    results));
  draw();
}
