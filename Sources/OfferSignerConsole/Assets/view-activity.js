import { api, path } from './api.js';
import { h, replace, table } from './dom.js';
import { number, isoDay, plural } from './format.js';
import { dailyColumns, horizontalBars } from './charts.js';
import { criterionLabel } from './offer-fields.js';

const RANGES = [[7, 'Last 7 days'], [30, 'Last 30 days'], [90, 'Last 90 days'], [0, 'Custom range']];

export async function renderActivity(main, { segments, query, navigate }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'Activity'), h('p', { class: 'loading' }, 'Loading…')));
  const summary = await api('GET', '/v1/stats/offers');
  const offers = summary.offers.sort((a, b) => b.signaturesLast7d - a.signaturesLast7d || a.offerId.localeCompare(b.offerId));
  if (!offers.length) {
    replace(main, h('div', { class: 'page' }, h('h1', null, 'Activity'), h('p', { class: 'empty' }, 'No offers yet, so no activity.')));
    return;
  }
  // Offer IDs are an app's own: with several apps, `?bundleId=` says whose.
  const wanted = query.get('bundleId');
  const chosenOffer = offers.find(o => o.offerId === segments[0] && (!wanted || o.bundleId === wanted)) || offers[0];
  const offerId = chosenOffer.offerId;
  const severalApps = new Set(offers.map(o => o.bundleId)).size > 1;
  const days = Number(query.get('days') ?? 30);
  const from = query.get('from') || isoDay(-(days || 30) + 1);
  const to = query.get('to') || isoDay(0);

  const offerSelect = h('select', { id: 'activity-offer' }, offers.map((o, index) =>
    h('option', { value: String(index), selected: o === chosenOffer }, severalApps ? `${o.offerId} (${o.bundleId})` : o.offerId)));
  const rangeSelect = h('select', { id: 'activity-range' }, RANGES.map(([value, label]) =>
    h('option', { value: String(value), selected: value === days }, label)));
  const fromInput = h('input', { type: 'date', id: 'activity-from', value: from, max: isoDay(0) });
  const toInput = h('input', { type: 'date', id: 'activity-to', value: to, max: isoDay(0) });
  const custom = h('div', { class: 'custom-range', hidden: days !== 0 },
    h('div', { class: 'field field-inline' }, h('label', { for: 'activity-from' }, 'From'), fromInput),
    h('div', { class: 'field field-inline' }, h('label', { for: 'activity-to' }, 'To'), toInput),
    h('button', { type: 'submit', class: 'button' }, 'Show'));
  const go = () => {
    const chosen = Number(rangeSelect.value);
    const offer = offers[Number(offerSelect.value)];
    const app = severalApps ? { bundleId: offer.bundleId } : {};
    navigate(['activity', offer.offerId], chosen ? { ...app, days: chosen } : { ...app, days: 0, from: fromInput.value, to: toInput.value });
  };
  offerSelect.addEventListener('change', go);
  rangeSelect.addEventListener('change', () => {
    custom.hidden = rangeSelect.value !== '0';
    if (rangeSelect.value !== '0') go();
  });
  const results = h('div', { class: 'activity-results' }, h('p', { class: 'loading' }, 'Loading…'));
  replace(main, h('div', { class: 'page' },
    h('h1', null, 'Activity'),
    h('p', { class: 'lead' }, 'Signatures issued and signing requests refused, per day (UTC). A refused request is counted under every criterion it failed.'),
    h('form', { class: 'toolbar', onsubmit: event => { event.preventDefault(); go(); } },
      h('div', { class: 'field field-inline' }, h('label', { for: 'activity-offer' }, 'Offer'), offerSelect),
      h('div', { class: 'field field-inline' }, h('label', { for: 'activity-range' }, 'Period'), rangeSelect),
      custom),
    results));

  let stats;
  try {
    stats = await api('GET', path('/v1/stats/offers', offerId), { params: { bundleId: severalApps ? chosenOffer.bundleId : undefined, from, to, bucket: 'day' } });
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    return;
  }
  const criteria = Object.entries(stats.totals.refusalsByCriterion).sort((a, b) => b[1] - a[1]).map(([key]) => key);
  replace(results,
    h('div', { class: 'kpis' },
      kpi('Signatures', stats.totals.signatures, 'kpi-signatures'),
      kpi('Refused requests', stats.totals.refusals, 'kpi-refusals'),
      kpi('Signed share', stats.totals.signatures + stats.totals.refusals
        ? `${Math.round(100 * stats.totals.signatures / (stats.totals.signatures + stats.totals.refusals))}%` : '—', 'kpi-share')),
    h('section', { class: 'panel', 'aria-labelledby': 'sig-title' },
      h('h2', { id: 'sig-title' }, `Signatures per day · ${stats.offerId}`),
      dailyColumns({ title: `Signatures per day for ${stats.offerId}`, days: stats.days.map(d => ({ day: d.day, values: { signatures: d.signatures } })),
        series: [{ key: 'signatures', label: 'signatures' }] })),
    h('section', { class: 'panel', 'aria-labelledby': 'ref-title' },
      h('h2', { id: 'ref-title' }, 'Refusals per day, by failed criterion'),
      criteria.length ? [
        dailyColumns({ title: `Refusals per day for ${stats.offerId}, by criterion`,
          days: stats.days.map(d => ({ day: d.day, values: d.refusalsByCriterion })),
          series: criteria.map(key => ({ key, label: criterionLabel(key) })) }),
        horizontalBars({ title: 'Refusals by criterion over the period', items: criteria.map(key => ({ label: criterionLabel(key), value: stats.totals.refusalsByCriterion[key] })) }),
      ] : h('p', { class: 'empty' }, 'No refusals in this period.')),
    h('details', { class: 'panel' },
      h('summary', null, 'The numbers, day by day'),
      table({ caption: 'Activity per day', rows: [...stats.days].reverse(), columns: [
        { label: 'Day', value: d => d.day },
        { label: 'Signatures', class: 'num', value: d => number(d.signatures) },
        { label: 'Refused', class: 'num', value: d => number(d.refusals) },
        { label: 'Failed criteria', value: d => Object.entries(d.refusalsByCriterion).map(([k, v]) => `${criterionLabel(k)} ${number(v)}`).join(', ') || '—' },
      ] })),
    h('p', { class: 'muted' }, `${plural(stats.days.length, 'day')} from ${stats.from} to ${stats.to}.`));
}

function kpi(label, value, id) {
  return h('div', { class: 'kpi', id }, h('span', { class: 'kpi-value' }, typeof value === 'number' ? number(value) : value), h('span', { class: 'kpi-label' }, label));
}
