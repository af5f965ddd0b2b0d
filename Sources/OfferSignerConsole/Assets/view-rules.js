// The list of one kind of managed rule (retention rules, introductory-offer rules: see
// retention-fields.js and introductory-fields.js), per app, in the order they are tried.
import { api } from './api.js';
import { h, replace, table } from './dom.js';
import { number, plural, relative, dateTime } from './format.js';

export function enabledBadge(enabled) {
  return enabled
    ? h('span', { class: ['badge', 'badge-live'], title: 'Tried when a request comes' }, 'enabled')
    : h('span', { class: ['badge', 'badge-disabled'], title: 'Switched off' }, 'disabled');
}

export async function renderRules(main, { me, href, query, navigate, kind }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, kind.title), h('p', { class: 'loading' }, 'Loading rules…')));
  const apps = me.apps || [];
  const app = apps.length > 1 ? (query.get('bundleId') || '') : '';
  const { rules } = await api('GET', kind.api, { params: { bundleId: app } });
  const search = h('input', { type: 'search', id: 'rule-search', value: query.get('q') || '', placeholder: kind.searchHint });
  const stateSelect = h('select', { id: 'rule-state' },
    h('option', { value: '' }, 'All'),
    ['enabled', 'disabled'].map(state => h('option', { value: state, selected: query.get('state') === state }, state)));
  const appSelect = apps.length > 1 ? h('select', { id: 'rule-app', onchange: event => navigate([kind.id], event.target.value ? { bundleId: event.target.value } : undefined) },
    h('option', { value: '' }, 'Every app'), apps.map(bundleId => h('option', { value: bundleId, selected: bundleId === app }, bundleId))) : null;
  const results = h('div', { class: 'results' });
  const summary = h('p', { class: 'summary', role: 'status' });

  function draw() {
    const text = search.value.trim().toLowerCase();
    const shown = rules.filter(rule =>
      (!stateSelect.value || (stateSelect.value === 'enabled') === rule.enabled)
      && (!text || kind.search(rule).some(value => value && value.toLowerCase().includes(text))));
    const enabled = rules.filter(rule => rule.enabled).length;
    summary.textContent = `${plural(rules.length, 'rule')}, ${number(enabled)} enabled${shown.length !== rules.length ? ` · ${number(shown.length)} shown` : ''}`;
    replace(results, table({
      caption: kind.title,
      empty: rules.length ? 'No rule matches the filter.' : 'No rules yet. Create the first one.',
      rows: shown.sort((a, b) => a.bundleId.localeCompare(b.bundleId) || b.priority - a.priority || a.ruleId.localeCompare(b.ruleId)),
      onRowClick: rule => href([kind.id, 'edit', rule.ruleId], apps.length > 1 ? { bundleId: rule.bundleId } : undefined),
      rowLabel: rule => `Edit rule ${rule.ruleId}`,
      columns: [
        { label: 'Rule', class: 'col-id', value: rule => rule.ruleId },
        apps.length > 1 ? { label: 'App', value: rule => rule.bundleId } : null,
        ...kind.columns,
        { label: 'Priority', class: 'num', value: rule => number(rule.priority) },
        { label: 'State', value: rule => enabledBadge(rule.enabled) },
        { label: 'Updated', value: rule => h('time', { datetime: rule.updatedAt, title: dateTime(rule.updatedAt) }, relative(rule.updatedAt)) },
      ].filter(Boolean),
    }));
  }
  search.addEventListener('input', draw);
  stateSelect.addEventListener('change', draw);

  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', null, kind.title),
      h('a', { class: 'button button-primary', href: href([kind.id, 'new'], app ? { bundleId: app } : undefined) }, 'New rule')),
    h('p', { class: 'lead' }, kind.lead),
    h('div', { class: 'toolbar', role: 'search' },
      h('div', { class: 'field field-inline' }, h('label', { for: 'rule-search' }, 'Search'), search),
      h('div', { class: 'field field-inline' }, h('label', { for: 'rule-state' }, 'State'), stateSelect),
      appSelect ? h('div', { class: 'field field-inline' }, h('label', { for: 'rule-app' }, 'App'), appSelect) : null),
    summary,
    results));
  draw();
}
