// The experiment results' charts, drawn with the DOM (no library): an arm's difference from
// the control with its always-valid interval over time, and every arm's current interval
// against zero. Each has a title and a description in words; the numbers are also in the
// table and sentences beside them.
import { h, s } from './dom.js';
import { shortDay, dateTime } from './format.js';

const W = 600;
const H = 200;

function svgRoot(title, description, width, height) {
  const id = `chart-${Math.random().toString(36).slice(2)}`;
  return s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-labelledby': `${id}-t ${id}-d`, preserveAspectRatio: 'none' },
    s('title', { id: `${id}-t` }, title),
    s('desc', { id: `${id}-d` }, description));
}

/** Bounds that hold zero and every value, with a little room. */
function bounds(values) {
  let low = Math.min(0, ...values);
  let high = Math.max(0, ...values);
  if (low === high) { low -= 1; high += 1; }
  const room = (high - low) * 0.08;
  return [low - room, high + room];
}

function yLabels(low, high, format) {
  const scale = v => 100 * (high - v) / (high - low);
  const values = [high, 0, low].filter((v, i, all) => i === 1 || Math.abs(scale(v) - scale(0)) > 12);
  return h('div', { class: 'y-axis', 'aria-hidden': 'true' }, values.map(v => {
    const label = h('span', null, v === 0 ? '0' : format(v));
    label.style.top = `${scale(v)}%`;
    return label;
  }));
}

/**
 * The difference over time: `points` = [{at, users, difference, low, high}] (oldest first),
 * the band the always-valid interval, the line the difference, the dashed line zero.
 */
export function sequenceChart({ title, points, format, axisFormat = format, unit, limits }) {
  // The first looks' intervals are very wide (few users): the scale follows the looks whose
  // interval is at most four times as wide as the last one's (and `limits`, e.g. ±100 points
  // for a difference of rates); wider intervals run off the chart, and a note says so.
  const finalWidth = points[points.length - 1].high - points[points.length - 1].low;
  const scaled = points.filter(p => p.high - p.low <= 4 * finalWidth);
  let [low, high] = bounds(scaled.flatMap(p => [p.low, p.high]));
  if (limits) { low = Math.max(low, limits[0]); high = Math.min(high, limits[1]); }
  const clipped = points.some(p => p.low < low || p.high > high);
  const times = points.map(p => Date.parse(p.at));
  const first = times[0];
  const span = Math.max(1, times[times.length - 1] - first);
  const x = t => (W * (t - first) / span).toFixed(1);
  const y = v => (H * (high - Math.min(high, Math.max(low, v))) / (high - low)).toFixed(1);
  const last = points[points.length - 1];
  const svg = svgRoot(title,
    `${points.length} looks from ${dateTime(points[0].at)} to ${dateTime(last.at)}; at the last, with ${last.users} users, the difference is ${format(last.difference)} (between ${format(last.low)} and ${format(last.high)}).`,
    W, H);
  const upper = points.map((p, i) => `${x(times[i])},${y(p.high)}`);
  const lower = points.map((p, i) => `${x(times[i])},${y(p.low)}`).reverse();
  svg.append(
    s('polygon', { points: [...upper, ...lower].join(' '), class: 'ci-band' }),
    s('line', { x1: 0, x2: W, y1: y(0), y2: y(0), class: 'ci-zero', 'vector-effect': 'non-scaling-stroke' }),
    s('polyline', { points: points.map((p, i) => `${x(times[i])},${y(p.difference)}`).join(' '), class: 'ci-line', 'vector-effect': 'non-scaling-stroke' }));
  const xAxis = h('div', { class: 'x-axis time-axis', 'aria-hidden': 'true' },
    [[0, 'first'], [0.5, ''], [1, 'last']].map(([fraction, kind]) => {
      const label = h('span', { class: kind || undefined }, shortDay(first + span * fraction));
      label.style.left = `${100 * fraction}%`;
      return label;
    }));
  return h('figure', { class: 'chart-figure ci-figure' },
    unit ? h('p', { class: 'ci-unit', 'aria-hidden': 'true' }, unit) : null,
    h('div', { class: 'ci-plot' }, yLabels(low, high, axisFormat), h('div', { class: 'ci-area' }, svg)),
    h('div', { class: 'ci-x' }, xAxis),
    h('ul', { class: 'legend' },
      h('li', null, h('span', { class: 'swatch ci-swatch-band', 'aria-hidden': 'true' }), 'always-valid interval'),
      h('li', null, h('span', { class: 'swatch ci-swatch-line', 'aria-hidden': 'true' }), 'difference from the control'),
      h('li', null, h('span', { class: 'swatch ci-swatch-zero', 'aria-hidden': 'true' }), 'no difference')),
    clipped ? h('p', { class: 'muted ci-note' }, 'The first looks’ intervals, with few users, are wider than the chart: they run off its edges.') : null);
}

/**
 * Every comparison's current interval against zero: `rows` = [{label, difference, low, high}]
 * (difference null: not enough users yet, said in words).
 */
export function intervalChart({ title, rows, format, axisFormat = format, unit }) {
  const drawn = rows.filter(row => row.difference !== null && row.difference !== undefined);
  const [low, high] = bounds(drawn.flatMap(row => [row.low, row.high]));
  const x = v => 1000 * (v - low) / (high - low);
  const figure = h('figure', { class: 'chart-figure forest', role: 'group', 'aria-label': title },
    unit ? h('p', { class: 'ci-unit', 'aria-hidden': 'true' }, unit) : null);
  for (const row of rows) {
    figure.append(h('p', { class: 'lane-label' }, row.label));
    if (row.difference === null || row.difference === undefined) {
      figure.append(h('p', { class: 'muted forest-empty' }, 'Not enough users past the horizon yet.'));
      continue;
    }
    const svg = svgRoot(`${title}: ${row.label}`,
      `Difference ${format(row.difference)}, between ${format(row.low)} and ${format(row.high)}.`, 1000, 24);
    svg.setAttribute('class', ['chart', 'forest-lane', row.established ? 'forest-established' : ''].join(' ').trim());
    svg.append(
      s('line', { x1: x(0).toFixed(1), x2: x(0).toFixed(1), y1: 0, y2: 24, class: 'ci-zero', 'vector-effect': 'non-scaling-stroke' }),
      s('rect', { x: x(row.low).toFixed(1), y: 8, width: Math.max(2, x(row.high) - x(row.low)).toFixed(1), height: 8, class: 'forest-interval' }),
      s('rect', { x: (x(row.difference) - 3).toFixed(1), y: 2, width: 6, height: 20, class: 'forest-point' }));
    figure.append(svg);
  }
  if (drawn.length) {
    const axis = h('div', { class: 'x-axis time-axis', 'aria-hidden': 'true' });
    for (const [value, kind] of [[low, 'first'], [0, ''], [high, 'last']]) {
      const label = h('span', { class: kind || undefined }, value === 0 ? '0' : axisFormat(value));
      label.style.left = `${100 * (value - low) / (high - low)}%`;
      axis.append(label);
    }
    figure.append(axis);
  }
  return figure;
}
