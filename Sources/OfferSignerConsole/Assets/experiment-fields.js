// Offer experiments (arms of a placement: an offer each, or none for a no-offer control):
// the fields as the editor, its errors and the history name them, and the numbers in words.
import { h } from './dom.js';
import { dateTime } from './format.js';

export const EXPERIMENTS_API = '/v1/admin/experiments';

export const METRICS = [
  ['retained', 'Retained at the horizon (the share of users still subscribed)'],
  ['revenue', 'Revenue per user at the horizon (net of refunds, per currency)'],
];

export const STATUS_HELP = {
  draft: 'Not started: nobody is assigned yet',
  running: 'Assigning users who reach the placement',
  stopped: 'Stopped: no more users are assigned',
  deleted: 'A deleted draft',
};

/** The arms in a history's diff: `control: winback (weight 1), b: no offer (weight 1)`. */
function armsText(arms) {
  return arms.map(arm => `${arm.armId}: ${arm.offerId ?? 'no offer'} (weight ${arm.weight})`).join(', ');
}

/** The experiment's fields, for the history's diff and for placing the service's errors (rule-form.js's schema shape). */
export const EXPERIMENT_SCHEMA = {
  sections: [],
  fields: [
    { path: 'experimentId', kind: 'text', label: 'Experiment ID' },
    { path: 'bundleId', kind: 'app', label: 'App' },
    { path: 'placement', kind: 'text', label: 'Placement' },
    { path: 'arms', kind: 'arms', label: 'Arms', format: armsText },
    { path: 'metric', kind: 'choice', label: 'Metric', options: METRICS.map(([value, label]) => [value, label.replace(/ \(.*/, '')]) },
    { path: 'horizonDays', kind: 'int', label: 'Horizon', unit: 'days' },
    { path: 'alpha', kind: 'text', label: 'Alpha' },
    { path: 'expectedUsers', kind: 'int', label: 'Expected users', unset: '5,000 (the default)' },
    { path: 'status', kind: 'text', label: 'Status' },
    { path: 'startedAt', kind: 'datetime', label: 'Started', unset: 'not started' },
    { path: 'stoppedAt', kind: 'datetime', label: 'Stopped', unset: 'not stopped' },
    { path: 'winner', kind: 'text', label: 'Winner', unset: 'none' },
    { path: 'revenueCaps', kind: 'caps', label: 'Revenue caps per user', unset: 'none',
      format: caps => Object.entries(caps).map(([currency, milli]) => `${currency} ${(milli / 1000).toFixed(2)}`).join(', ') || 'none' },
    { path: 'weightPeriods', kind: 'periods', label: 'Weights in force', unset: 'none',
      format: periods => periods.map(period => `from ${dateTime(period.from)}: ${period.weights.join(' / ')}`).join('; ') },
  ],
};

/** An experiment's status as a badge. */
export function statusBadge(status) {
  const kind = { draft: 'scheduled', running: 'live', stopped: 'ended', deleted: 'disabled' }[status] || 'ended';
  return h('span', { class: ['badge', `badge-${kind}`], title: STATUS_HELP[status] }, status);
}

/** `control (no offer)`, `b: winback_50`. */
export function armLabel(arm) {
  return arm.offerId ? `${arm.armId}: ${arm.offerId}` : `${arm.armId} (no offer)`;
}

/** Each arm's share of the users, from the weights: `50%`. */
export function shares(arms) {
  const total = arms.reduce((sum, arm) => sum + (Number(arm.weight) || 0), 0);
  return arms.map(arm => {
    if (!(total > 0)) return '—';
    const share = 100 * (Number(arm.weight) || 0) / total;
    return `${Number.isInteger(share) ? share : share.toFixed(1)}%`;
  });
}

/** A value of the metric: a rate difference as points (0.042 → `4.2 points`), revenue in milli-units per user as money. */
export function metricValue(value, currency, { signed = false } = {}) {
  if (value === null || value === undefined) return '—';
  const sign = signed && value > 0 ? '+' : value < 0 ? '−' : '';
  if (currency) return `${sign}${currency} ${(Math.abs(value) / 1000).toFixed(2)}`;
  const points = Math.abs(value * 100);
  return `${sign}${points.toFixed(points < 10 ? 1 : 0)} point${points === 1 ? '' : 's'}`;
}

/** A rate as a percentage (`31.5%`), or revenue per user per currency. */
export function armMetric(arm, metric) {
  if (metric === 'revenue') {
    const entries = Object.entries(arm.revenuePerUser || {}).sort(([a], [b]) => a.localeCompare(b));
    return entries.length ? entries.map(([currency, value]) => `${currency} ${(value / 1000).toFixed(2)}`).join(', ') : '—';
  }
  return arm.retainedRate === null || arm.retainedRate === undefined ? '—' : `${(100 * arm.retainedRate).toFixed(1)}%`;
}

/** A p-value as people read it. */
export function pValueText(value) {
  if (value === null || value === undefined) return '—';
  if (value < 0.001) return '< 0.001';
  return value.toFixed(value < 0.01 ? 3 : 2);
}

/** The comparison in a sentence: the difference, its interval, and whether it is established. */
export function comparisonSentence(comparison, metric, level) {
  const what = metric === 'revenue' ? `revenue per user in ${comparison.currency}` : 'retained rate';
  if (comparison.difference === null || comparison.difference === undefined) {
    return `Arm ${comparison.armId} against ${comparison.controlArmId}: not enough users past the horizon yet (each arm needs two).`;
  }
  const direction = comparison.difference >= 0 ? 'higher' : 'lower';
  const amount = metricValue(Math.abs(comparison.difference), comparison.currency);
  const range = `between ${metricValue(comparison.low, comparison.currency)} and ${metricValue(comparison.high, comparison.currency)}`;
  const verdict = comparison.established
    ? (comparison.difference > 0 ? ' Established: the interval is above zero.' : ' Established: the interval is below zero.')
    : ' Not established: the interval still includes zero.';
  return `Arm ${comparison.armId}'s ${what} is ${amount} ${direction} than ${comparison.controlArmId}'s (${range}, ${(100 * level).toFixed(level * 100 % 1 ? 1 : 0)}% always-valid; p = ${pValueText(comparison.pValue)}).${verdict}`;
}

/** A short axis label of the metric (`+12`, `−0.50`) and the unit the axis is in. */
export function axisOf(currency) {
  const sign = value => (value > 0 ? '+' : value < 0 ? '−' : '');
  if (currency) {
    return { unit: `Difference from the control, ${currency} per user`, format: value => `${sign(value)}${(Math.abs(value) / 1000).toFixed(2)}` };
  }
  return { unit: 'Difference from the control, in points of retained rate', format: value => {
    const points = Math.abs(value * 100);
    return `${sign(value)}${points.toFixed(points < 10 ? 1 : 0)}`;
  } };
}
