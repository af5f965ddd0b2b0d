// A rule's change history as a readable diff: who, when, and each field before and after.
// The same for offers, retention rules and introductory-offer rules, each with its schema.
import { h } from './dom.js';
import { getPath, fieldValue, displayValue } from './rule-form.js';
import { dateTime, relative } from './format.js';

const BOOKKEEPING = ['createdAt', 'updatedAt', 'version'];

/** Leaf paths of the rules that no field of the schema shows, for comparing two versions. */
function otherPaths(schema, ...rules) {
  const known = new Set(schema.fields.filter(f => !f.virtual).map(f => f.path));
  const found = new Set();
  const walk = (value, prefix) => {
    if (known.has(prefix)) return; // a field the schema shows whole (e.g. an object it formats)
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
    } else if (prefix && !known.has(prefix) && !BOOKKEEPING.includes(prefix) && ![...known].some(path => path.startsWith(`${prefix}.`))) {
      found.add(prefix);
    }
  };
  for (const rule of rules) walk(rule || {}, '');
  return [...found];
}

function emptyCollection(value) {
  return Boolean(value) && typeof value === 'object' && !Object.keys(value).length;
}

function same(a, b) {
  const norm = v => (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length) ? null : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** The changed fields between two versions, in the form's order: [{label, before, after}]. */
export function diffRules(before, after, schema) {
  const rows = [];
  const compare = (spec, label, a, b) => {
    if (before && same(a, b)) return;
    // A new rule lists what it sets; a derived field only when it is not its first, plainest value.
    if (!before && (b === undefined || b === null || b === '' || emptyCollection(b) || (spec?.virtual && (!b || b === spec.options?.[0]?.[0])))) return;
    rows.push({ label, before: before ? displayValue(spec, a) : '', after: displayValue(spec, b) });
  };
  for (const spec of schema.fields) compare(spec, spec.label, fieldValue(spec, before), fieldValue(spec, after));
  for (const path of otherPaths(schema, before, after)) compare(null, path, getPath(before || {}, path), getPath(after || {}, path));
  return rows;
}

const ACTIONS = { create: 'Created', update: 'Changed', disable: 'Disabled' };

/** The history list, newest first; `showName` puts each change's offer or rule ID first. */
export function historyList(changes, { schema, showName = false }) {
  if (!changes.length) return h('p', { class: 'empty' }, 'No changes recorded yet.');
  return h('ol', { class: 'history' }, [...changes].reverse().map(change => {
    const rows = diffRules(change.before, change.after, schema);
    return h('li', { class: 'history-item' },
      h('p', { class: 'history-head' },
        showName ? [h('span', { class: 'history-offer' }, change.offerId ?? change.ruleId), ' · '] : null,
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
