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
 */
export function dailyColumns({ title, days, series, height = 220 }) {
  const width = 900;
  const left = 40, right = 8, top = 10, bottom = 28;
  const totals = days.map(d => series.reduce((sum, item) => sum + (d.values[item.key] || 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = width - left - right, plotH = height - top - bottom;
  const step = plotW / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(28, step * 0.7));
  const total = totals.reduce((a, b) => a + b, 0);
  const svg = svgRoot(title, `${number(total)} in total over ${days.length} days, at most ${number(Math.max(0, ...totals))} on one day.`, width, height);
  for (const fraction of [0, 0.5, 1]) {
    const y = top + plotH * (1 - fraction);
    svg.append(s('line', { x1: left, x2: width - right, y1: y, y2: y, class: 'grid' }));
    svg.append(s('text', { x: left - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, number(Math.round(max * fraction))));
  }
  const labelEvery = Math.ceil(days.length / 8);
  days.forEach((d, i) => {
    const x = left + step * i + (step - barW) / 2;
    let y = top + plotH;
    series.forEach((item, index) => {
      const value = d.values[item.key] || 0;
      if (!value) return;
      const barH = plotH * value / max;
      y -= barH;
      svg.append(s('rect', { x: x.toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: Math.max(1, barH).toFixed(1), class: ['bar', seriesClass(index)].join(' ') },
        s('title', null, `${dayText(d.day)}: ${number(value)} ${item.label}`)));
    });
    if (i % labelEvery === 0) {
      svg.append(s('text', { x: (left + step * i + step / 2).toFixed(1), y: height - 8, class: 'axis', 'text-anchor': 'middle' }, shortDay(d.day)));
    }
  });
  return h('figure', { class: 'chart-figure' }, svg,
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
 * between `from` and `to` (ms). Kinds: paid, trial, offer, lapse, refund.
 */
export function timeline({ title, description, lanes, from, to }) {
  const width = 1000, left = 8, right = 8, laneH = 38, top = 8, axisH = 26;
  const height = top + lanes.length * (laneH + 22) + axisH;
  const span = Math.max(1, to - from);
  const x = t => left + (width - left - right) * (Math.min(Math.max(t, from), to) - from) / span;
  const svg = svgRoot(title, description, width, height);
  lanes.forEach((lane, index) => {
    const y = top + index * (laneH + 22);
    svg.append(s('text', { x: left, y: y + 12, class: 'lane-label' }, lane.label));
    svg.append(s('rect', { x: left, y: y + 18, width: width - left - right, height: laneH - 14, class: 'lane-track', rx: 3 }));
    for (const seg of lane.segments) {
      const x1 = x(seg.start), x2 = x(seg.end ?? to);
      svg.append(s('rect', { x: x1.toFixed(1), y: y + 18, width: Math.max(2, x2 - x1).toFixed(1), height: laneH - 14, class: `seg seg-${seg.kind}`, rx: 2 },
        s('title', null, seg.title)));
    }
    for (const mark of lane.marks || []) {
      const mx = x(mark.at);
      svg.append(s('path', { d: `M${mx.toFixed(1)} ${y + 14} l5 -8 h-10 z`, class: `mark mark-${mark.kind}` }, s('title', null, mark.title)));
      svg.append(s('line', { x1: mx.toFixed(1), x2: mx.toFixed(1), y1: y + 14, y2: y + laneH + 4, class: `mark-line mark-${mark.kind}` }));
    }
  });
  // Axis: about six dates.
  const axisY = height - axisH + 4;
  svg.append(s('line', { x1: left, x2: width - right, y1: axisY, y2: axisY, class: 'grid' }));
  const ticks = 6;
  for (let i = 0; i <= ticks; i += 1) {
    const t = from + span * i / ticks;
    const anchor = i === 0 ? 'start' : i === ticks ? 'end' : 'middle';
    svg.append(s('text', { x: x(t).toFixed(1), y: axisY + 16, class: 'axis', 'text-anchor': anchor },
      new Date(t).toLocaleDateString('en-US', { month: 'short', year: '2-digit', timeZone: 'UTC' })));
  }
  return h('figure', { class: 'chart-figure timeline' }, svg,
    h('ul', { class: 'legend' }, [['paid', 'Paid'], ['trial', 'Free trial'], ['offer', 'Offer period'], ['lapse', 'Lapsed'], ['refund', 'Refund']]
      .map(([kind, label]) => h('li', null, h('span', { class: ['swatch', `seg-${kind}`], 'aria-hidden': 'true' }), label))));
}
