// An offer's change history as a readable diff: who, when, and each field before and after.
import { h } from './dom.js';
import { OFFER_FIELDS, getPath } from './offer-fields.js';
import { displayValue } from './offer-form.js';
import { dateTime, relative } from './format.js';

/** Every leaf path of a rule (known fields first, then any other), for comparing two versions. */
function paths(...rules) {
  const found = new Set(OFFER_FIELDS.map(f => f.path));
  const walk = (value, prefix) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
    } else if (prefix) {
      found.add(prefix);
    }
  };
  for (const rule of rules) walk(rule || {}, '');
  for (const bookkeeping of ['createdAt', 'updatedAt', 'version']) found.delete(bookkeeping);
  return [...found];
}

function same(a, b) {
  const norm = v => (v === undefined || v === null || (Array.isArray(v) && !v.length) ? null : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** The changed fields between two versions: [{label, before, after}]. */
export function diffRules(before, after) {
  return paths(before, after).flatMap(path => {
    const a = getPath(before || {}, path), b = getPath(after || {}, path);
    if (before && same(a, b)) return [];
    if (!before && (b === undefined || b === null)) return [];
    const spec = OFFER_FIELDS.find(f => f.path === path);
    return [{ path, label: spec ? spec.label : path, before: before ? displayValue(spec, a) : '', after: displayValue(spec, b) }];
  });
}

const ACTIONS = { create: 'Created', update: 'Changed', disable: 'Disabled' };

/** The history list, newest first. */
export function historyList(changes, { showOffer = false } = {}) {
  if (!changes.length) return h('p', { class: 'empty' }, 'No changes recorded yet.');
  return h('ol', { class: 'history' }, [...changes].reverse().map(change => {
    const rows = diffRules(change.before, change.after);
    return h('li', { class: 'history-item' },
      h('p', { class: 'history-head' },
        showOffer ? [h('span', { class: 'history-offer' }, change.offerId), ' · '] : null,
        h('strong', null, `${ACTIONS[change.action] || change.action} · version ${change.version}`),
        ' by ', h('span', { class: 'actor' }, change.apiKeyName || 'unknown'), ' · ',
        h('time', { datetime: change.changedAt, title: relative(change.changedAt) }, dateTime(change.changedAt))),
      rows.length ? h('table', { class: 'diff' },
        h('caption', { class: 'visually-hidden' }, `Fields changed in version ${change.version}`),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Field'), change.before ? h('th', { scope: 'col' }, 'Before') : null, h('th', { scope: 'col' }, change.before ? 'After' : 'Value'))),
        h('tbody', null, rows.map(row => h('tr', null,
          h('th', { scope: 'row' }, row.label),
          change.before ? h('td', { class: 'diff-before' }, h('del', null, row.before)) : null,
          h('td', { class: 'diff-after' }, change.before ? h('ins', null, row.after) : row.after)))))
        : h('p', { class: 'muted' }, 'No field changed.'));
  }));
}
