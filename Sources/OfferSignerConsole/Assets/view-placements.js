// The placements of each app: the named moments (cancel_flow, winback_push…) and the offers
// each may show, in priority order, with their state.
import { api } from './api.js';
import { h, replace, table } from './dom.js';
import { number, plural, relative, dateTime } from './format.js';
import { PLACEMENTS_API, offersOf, orderList } from './placement-fields.js';
import { enabledBadge } from './view-rules.js';

export async function renderPlacements(main, { me, href, query, navigate }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'Placements'), h('p', { class: 'loading' }, 'Loading placements…')));
  const apps = me.apps || [];
  const app = apps.length > 1 ? (query.get('bundleId') || '') : '';
  const [{ placements }, { offers }] = await Promise.all([
    api('GET', PLACEMENTS_API, { params: { bundleId: app } }),
    api('GET', '/v1/admin/offers'),
  ]);
  const known = new Map();
  const offersOfApp = bundleId => {
    if (!known.has(bundleId)) known.set(bundleId, offersOf(offers, bundleId));
    return known.get(bundleId);
  };
  const search = h('input', { type: 'search', id: 'placement-search', value: query.get('q') || '', placeholder: 'Placement or offer ID' });
  const stateSelect = h('select', { id: 'placement-state' },
    h('option', { value: '' }, 'All'),
    ['enabled', 'disabled'].map(state => h('option', { value: state, selected: query.get('state') === state }, state)));
  const appSelect = apps.length > 1 ? h('select', { id: 'placement-app', onchange: event => navigate(['placements'], event.target.value ? { bundleId: event.target.value } : undefined) },
    h('option', { value: '' }, 'Every app'), apps.map(bundleId => h('option', { value: bundleId, selected: bundleId === app }, bundleId))) : null;
  const results = h('div', { class: 'results' });
  const summary = h('p', { class: 'summary', role: 'status' });

  function draw() {
    const text = search.value.trim().toLowerCase();
    const shown = placements.filter(placement =>
      (!stateSelect.value || (stateSelect.value === 'enabled') === placement.enabled)
      && (!text || [placement.placementId, ...placement.offerIds].some(value => value.toLowerCase().includes(text))));
    const enabled = placements.filter(placement => placement.enabled).length;
    summary.textContent = `${plural(placements.length, 'placement')}, ${number(enabled)} enabled${shown.length !== placements.length ? ` · ${number(shown.length)} shown` : ''}`;
    replace(results, table({
      caption: 'Placements',
      empty: placements.length ? 'No placement matches the filter.' : 'No placements yet. Create the first one.',
      rows: shown.sort((a, b) => a.bundleId.localeCompare(b.bundleId) || a.placementId.localeCompare(b.placementId)),
      onRowClick: placement => href(['placements', 'edit', placement.placementId], apps.length > 1 ? { bundleId: placement.bundleId } : undefined),
      rowLabel: placement => `Edit placement ${placement.placementId}`,
      columns: [
        { label: 'Placement', class: 'col-id', value: placement => placement.placementId },
        apps.length > 1 ? { label: 'App', value: placement => placement.bundleId } : null,
        { label: 'Offers, first tried first', class: 'col-products', value: placement => orderList(placement, offersOfApp(placement.bundleId)) },
        { label: 'Description', class: 'col-description', value: placement => placement.description || h('span', { class: 'muted' }, '—') },
        { label: 'State', value: placement => enabledBadge(placement.enabled) },
        { label: 'Updated', value: placement => h('time', { datetime: placement.updatedAt, title: dateTime(placement.updatedAt) }, relative(placement.updatedAt)) },
      ].filter(Boolean),
    }));
  }
  search.addEventListener('input', draw);
  stateSelect.addEventListener('change', draw);

  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', null, 'Placements'),
      h('a', { class: 'button button-primary', href: href(['placements', 'new'], app ? { bundleId: app } : undefined) }, 'New placement')),
    h('p', { class: 'lead' }, 'The moments of an app where it may show an offer — the cancel flow, a win-back push, the paywall — and the offers each may show, best first. The app asks for the offer of the moment; the service signs the first one the user is eligible for, so you can reorder or replace offers without a release.'),
    h('div', { class: 'toolbar', role: 'search' },
      h('div', { class: 'field field-inline' }, h('label', { for: 'placement-search' }, 'Search'), search),
      h('div', { class: 'field field-inline' }, h('label', { for: 'placement-state' }, 'State'), stateSelect),
      appSelect ? h('div', { class: 'field field-inline' }, h('label', { for: 'placement-app' }, 'App'), appSelect) : null),
    summary,
    results));
  draw();
}
