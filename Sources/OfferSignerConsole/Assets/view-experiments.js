// The experiments of each app: which placement each tests, its arms and their shares, the
// metric and horizon, and where it stands (draft, running, stopped).
import { api } from './api.js';
import { h, replace, table } from './dom.js';
import { number, plural, relative, dateTime } from './format.js';
import { EXPERIMENTS_API, statusBadge, shares } from './experiment-fields.js';

export async function renderExperiments(main, { me, href, query, navigate }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'Experiments'), h('p', { class: 'loading' }, 'Loading experiments…')));
  const apps = me.apps || [];
  const app = apps.length > 1 ? (query.get('bundleId') || '') : '';
  const { experiments } = await api('GET', EXPERIMENTS_API, { params: { bundleId: app } });
  const search = h('input', { type: 'search', id: 'experiment-search', value: query.get('q') || '', placeholder: 'Experiment, placement or offer ID' });
  const statusSelect = h('select', { id: 'experiment-status' },
    h('option', { value: '' }, 'All'),
    ['draft', 'running', 'stopped'].map(status => h('option', { value: status, selected: query.get('status') === status }, status)));
  const appSelect = apps.length > 1 ? h('select', { id: 'experiment-app', onchange: event => navigate(['experiments'], event.target.value ? { bundleId: event.target.value } : undefined) },
    h('option', { value: '' }, 'Every app'), apps.map(bundleId => h('option', { value: bundleId, selected: bundleId === app }, bundleId))) : null;
  const results = h('div', { class: 'results' });
  const summary = h('p', { class: 'summary', role: 'status' });
  const order = { running: 0, draft: 1, stopped: 2 };

  function draw() {
    const text = search.value.trim().toLowerCase();
    const shown = experiments.filter(experiment =>
      (!statusSelect.value || experiment.status === statusSelect.value)
      && (!text || [experiment.experimentId, experiment.placement, ...experiment.arms.map(arm => arm.offerId || '')].some(value => value.toLowerCase().includes(text))));
    const running = experiments.filter(experiment => experiment.status === 'running').length;
    summary.textContent = `${plural(experiments.length, 'experiment')}, ${number(running)} running${shown.length !== experiments.length ? ` · ${number(shown.length)} shown` : ''}`;
    replace(results, table({
      caption: 'Experiments',
      empty: experiments.length ? 'No experiment matches the filter.' : 'No experiments yet. Create the first one.',
      rows: shown.sort((a, b) => a.bundleId.localeCompare(b.bundleId) || (order[a.status] ?? 3) - (order[b.status] ?? 3) || a.experimentId.localeCompare(b.experimentId)),
      onRowClick: experiment => href(['experiments', 'edit', experiment.experimentId], apps.length > 1 ? { bundleId: experiment.bundleId } : undefined),
      rowLabel: experiment => `Open experiment ${experiment.experimentId}`,
      columns: [
        { label: 'Experiment', class: 'col-id', value: experiment => experiment.experimentId },
        apps.length > 1 ? { label: 'App', value: experiment => experiment.bundleId } : null,
        { label: 'Placement', value: experiment => experiment.placement },
        { label: 'Arms', class: 'col-products', value: experiment => {
          const share = shares(experiment.arms);
          return h('ol', { class: 'order-inline' }, experiment.arms.map((arm, index) => h('li', null,
            h('span', { class: 'order-id' }, arm.armId), ': ', arm.offerId ?? h('em', null, 'no offer'), h('span', { class: 'muted' }, ` · ${share[index]}`),
            experiment.winner === arm.armId ? h('span', { class: 'badge badge-live arm-winner' }, 'winner') : null)));
        } },
        { label: 'Metric', value: experiment => `${experiment.metric === 'revenue' ? 'Revenue per user' : 'Retained'} at ${experiment.horizonDays} days` },
        { label: 'Status', value: experiment => statusBadge(experiment.status) },
        { label: 'Started', value: experiment => (experiment.startedAt ? h('time', { datetime: experiment.startedAt, title: dateTime(experiment.startedAt) }, relative(experiment.startedAt)) : '—') },
      ].filter(Boolean),
    }));
  }
  search.addEventListener('input', draw);
  statusSelect.addEventListener('change', draw);

  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', null, 'Experiments'),
      h('a', { class: 'button button-primary', href: href(['experiments', 'new'], app ? { bundleId: app } : undefined) }, 'New experiment')),
    h('p', { class: 'lead' }, 'Which offer works best at a placement: users who reach it are split between arms — an offer each, or no offer — and followed until the horizon. The results stay valid however often you look.'),
    h('div', { class: 'toolbar', role: 'search' },
      h('div', { class: 'field field-inline' }, h('label', { for: 'experiment-search' }, 'Search'), search),
      h('div', { class: 'field field-inline' }, h('label', { for: 'experiment-status' }, 'Status'), statusSelect),
      appSelect ? h('div', { class: 'field field-inline' }, h('label', { for: 'experiment-app' }, 'App'), appSelect) : null),
    summary,
    results));
  draw();
}
