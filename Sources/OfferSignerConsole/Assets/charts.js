// Small SVG charts drawn with the DOM (no library): each has a title and description for
// screen readers, and the numbers are also given as a table beside it by the views.
import { h, s } from './dom.js';
import { number, shortDay, day as dayText } from './format.js';

const PALETTE = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'];

/** A class name for series `index`, coloured by the stylesheet. */
export function seriesClass(index) {
  return `series-${PALETTE[index % PALETTE.length]}`;
}

function niceMax(value) {
  if (value <= 5) return 5;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (value <= step * power) return step * power;
  }
  return 10 * power;
}

function svgRoot(title, description, width, height) {
  const titleId = `chart-${Math.random().toString(36).slice(2)}`;
  return s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-labelledby': `${titleId}-t ${titleId}-d`, preserveAspectRatio: 'xMidYMid meet' },
    s('title', { id: `${titleId}-t` }, title),
    s('desc', { id: `${titleId}-d` }, description));
}

/**
 * Columns per day, stacked by series: `days` = [{day, values: {series: n}}], `series` = [{key, label}].
 * Bars are SVG stretched to the width; the axis labels are HTML, so they stay readable on a phone.
 */
export function dailyColumns({ title, days, series }) {
  const totals = days.map(d => series.reduce((sum, item) => sum + (d.values[item.key] || 0), 0));
  const highest = Math.max(0, ...totals);
  const max = niceMax(highest);
  const width = days.length * 10;
  const total = totals.reduce((a, b) => a + b, 0);
  const svg = svgRoot(title, `${number(total)} in total over ${days.length} days, at most ${number(highest)} on one day.`, width, 100);
  svg.setAttribute('preserveAspectRatio', 'none');
  for (const fraction of [0, 0.5, 1]) {
    svg.append(s('line', { x1: 0, x2: width, y1: 100 * (1 - fraction), y2: 100 * (1 - fraction), class: 'grid', 'vector-effect': 'non-scaling-stroke' }));
  }
  days.forEach((d, i) => {
    let y = 100;
    series.forEach((item, index) => {
      const value = d.values[item.key] || 0;
      if (!value) return;
      const barH = 100 * value / max;
      y -= barH;
      svg.append(s('rect', { x: i * 10 + 1.5, y: y.toFixed(2), width: 7, height: barH.toFixed(2), class: ['bar', seriesClass(index)].join(' ') },
        s('title', null, `${dayText(d.day)}: ${number(value)} ${item.label}`)));
    });
  });
  const yAxis = h('div', { class: 'y-axis', 'aria-hidden': 'true' }, [0, 0.5, 1].filter(f => Number.isInteger(max * f)).map(fraction => {
    const label = h('span', null, number(max * fraction));
    label.style.top = `${100 * (1 - fraction)}%`;
    return label;
  }));
  const labelEvery = Math.ceil(days.length / 7);
  const xAxis = h('div', { class: 'x-axis', 'aria-hidden': 'true' }, days.map((d, i) => {
    if (i % labelEvery !== 0) return null;
    const label = h('span', null, shortDay(d.day));
    label.style.left = `${100 * (i + 0.5) / days.length}%`;
    return label;
  }));
  return h('figure', { class: 'chart-figure columns' },
    h('div', { class: 'columns-plot' }, yAxis, h('div', { class: 'columns-bars' }, svg)),
    xAxis,
    series.length > 1 ? legend(series) : null);
}

export function legend(series) {
  return h('ul', { class: 'legend' }, series.map((item, index) =>
    h('li', null, h('span', { class: ['swatch', seriesClass(index)], 'aria-hidden': 'true' }), item.label)));
}

/** Horizontal bars: [{label, value, note}] against `total`. */
export function horizontalBars({ title, items, total, className = '' }) {
  const max = Math.max(1, total ?? Math.max(0, ...items.map(i => i.value)));
  return h('figure', { class: ['hbars', className] },
    h('figcaption', { class: 'visually-hidden' }, title),
    h('ol', { class: 'hbar-list' }, items.map((item, index) => {
      const bar = h('span', { class: ['hbar-fill', item.className || seriesClass(index)] });
      bar.style.width = `${Math.max(item.value ? 1 : 0, 100 * item.value / max)}%`;
      return h('li', { class: 'hbar' },
        h('span', { class: 'hbar-label' }, item.label),
        h('span', { class: 'hbar-track', 'aria-hidden': 'true' }, bar),
        h('span', { class: 'hbar-value' }, item.note ?? number(item.value)));
    })));
}

/**
 * A timeline of subscription periods: lanes = [{label, segments: [{start, end, kind, title}], marks: [{at, kind, title}]}]
 * between `from` and `to` (ms). Kinds: paid, trial, offer, lapse, refund. Bars are SVG stretched to the
 * width; labels are HTML.
 */
export function timeline({ title, description, lanes, from, to }) {
  const span = Math.max(1, to - from);
  const x = t => 1000 * (Math.min(Math.max(t, from), to) - from) / span;
  const figure = h('figure', { class: 'chart-figure timeline', role: 'group', 'aria-label': title },
    h('p', { class: 'visually-hidden' }, description));
  for (const lane of lanes) {
    const svg = svgRoot(`${title}: ${lane.label}`, lane.segments.map(seg => seg.title).join('; '), 1000, 20);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('class', 'chart lane');
    svg.append(s('rect', { x: 0, y: 0, width: 1000, height: 20, class: 'lane-track' }));
    for (const seg of lane.segments) {
      const x1 = x(seg.start), x2 = x(seg.end ?? to);
      svg.append(s('rect', { x: x1.toFixed(2), y: 0, width: Math.max(1.5, x2 - x1).toFixed(2), height: 20, class: `seg seg-${seg.kind}` },
        s('title', null, seg.title)));
    }
    for (const mark of lane.marks || []) {
      svg.append(s('line', { x1: x(mark.at).toFixed(2), x2: x(mark.at).toFixed(2), y1: 0, y2: 20, class: `mark mark-${mark.kind}`, 'vector-effect': 'non-scaling-stroke' },
        s('title', null, mark.title)));
    }
    figure.append(h('p', { class: 'lane-label' }, lane.label), svg);
  }
  const axis = h('div', { class: 'x-axis time-axis', 'aria-hidden': 'true' });
  const ticks = 4;
  for (let i = 0; i <= ticks; i += 1) {
    const t = from + span * i / ticks;
    const label = h('span', { class: i === 0 ? 'first' : i === ticks ? 'last' : undefined },
      new Date(t).toLocaleDateString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' }));
    label.style.left = `${100 * i / ticks}%`;
    axis.append(label);
  }
  figure.append(axis, h('ul', { class: 'legend' }, [['paid', 'Paid'], ['trial', 'Free trial'], ['offer', 'Offer period'], ['code', 'Offer code'], ['retention', 'App Store retention offer'], ['lapse', 'Lapsed'], ['refund', 'Refund']]
    .map(([kind, label]) => h('li', null, h('span', { class: ['swatch', `seg-${kind}`], 'aria-hidden': 'true' }), label))));
  return figure;
}
