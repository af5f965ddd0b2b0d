// A rule editor's form, built from a schema ({sections, fields, finish}: offer-fields.js,
// retention-fields.js, introductory-fields.js): controls from rule values, a rule from the
// controls (keeping any field the console does not know), fields shown only when another
// field has some value, and the service's errors placed next to the fields they name.
//
// Field kinds: text, app (bundle ID), list (comma or line separated), bool, int, datetime (UTC),
// choice (a select of `options`), radio (one of `options`), multi (several of `options`,
// numbers), pick (a select of options the editor supplies, see `choices`).
// A field may be `virtual` (not a rule field: `derive(rule)` gives its value, and `finish`
// reads it), may be shown only `when` another field has one of some values, and may be
// `needed` (the message when it is shown and left empty).
import { h, field } from './dom.js';
import { clearErrorSummary, showErrorSummary } from './error-summary.js';
import { dateTime } from './format.js';

export function getPath(object, path) {
  return path.split('.').reduce((value, key) => (value == null ? undefined : value[key]), object);
}

export function setPath(object, path, value) {
  const keys = path.split('.');
  let target = object;
  for (const key of keys.slice(0, -1)) {
    if (target[key] === null || typeof target[key] !== 'object') target[key] = {};
    target = target[key];
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete target[last]; else target[last] = value;
}

export function fieldId(spec) {
  return `f-${spec.path.replace(/\./g, '-')}`;
}

/** A field's value in a stored rule: its path's value, or what a virtual field derives. */
export function fieldValue(spec, rule) {
  return spec.virtual ? spec.derive(rule || {}) : getPath(rule || {}, spec.path);
}

/** The field a path names: `productIds[2]` and `eligibility.minPaidDays` find their entries. */
export function fieldForPath(path, schema) {
  const clean = path.replace(/\[\d+\]/g, '');
  const fields = schema.fields.filter(f => !f.virtual);
  return fields.find(f => f.path === clean)
    || fields.find(f => clean.startsWith(`${f.path}.`))
    || fields.find(f => f.path.endsWith(`.${clean}`));
}

/** The first field named in quotes in one of the service's messages, e.g. `'eligibility.minPaidDays' must …`. */
export function fieldForMessage(message, schema) {
  for (const match of message.matchAll(/'([A-Za-z][A-Za-z0-9_.\[\]]*)'/g)) {
    const found = fieldForPath(match[1], schema);
    if (found) return found;
  }
  return null;
}

function toLocalInput(value) {
  return value ? String(value).replace(/Z$/, '').slice(0, 16) : '';
}

function pickOptions(spec, value, choices, bundleId) {
  const options = (choices[spec.path] ? choices[spec.path](bundleId) : []);
  const known = options.some(([optionValue]) => optionValue === value);
  return [
    h('option', { value: '' }, spec.placeholder || 'Choose…'),
    value && !known ? h('option', { value, selected: true }, `${value} (not an offer of this app)`) : null,
    options.map(([optionValue, label]) => h('option', { value: optionValue, selected: optionValue === value }, label)),
  ];
}

function control(spec, value, { apps, saved, choices = {}, rule }) {
  const fixed = spec.fixedOnceSaved && saved;
  switch (spec.kind) {
    case 'bool':
      return h('input', { type: 'checkbox', checked: value === true });
    case 'int':
      return h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', value: value ?? '', class: 'input-short' });
    case 'datetime':
      return h('input', { type: 'datetime-local', step: '60', value: toLocalInput(value) });
    case 'list':
      return h('textarea', { rows: '2', spellcheck: 'false', value: (value || []).join(', ') });
    case 'choice':
      return h('select', null, spec.options.map(([optionValue, label]) =>
        h('option', { value: optionValue, selected: (value ?? '') === optionValue }, label)));
    case 'pick':
      return h('select', null, pickOptions(spec, value ?? '', choices, rule.bundleId));
    case 'app': {
      const options = apps.includes(value) || !value ? apps : [value, ...apps];
      return h('select', { disabled: saved || options.length < 2 }, options.map(app => h('option', { value: app, selected: app === value }, app)));
    }
    default:
      return h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: value ?? '', readonly: fixed || undefined });
  }
}

/** A fieldset of checkboxes (multi) or radio buttons (radio), with help and an error slot. */
function groupField(spec, value) {
  const id = fieldId(spec);
  const radio = spec.kind === 'radio';
  const chosen = new Set(radio ? [value] : (value || []));
  return h('fieldset', { class: ['field', 'field-wide', 'field-multi', radio && 'field-radio'], dataset: { field: id }, id, 'aria-describedby': `${id}-help ${id}-error` },
    h('legend', null, spec.label),
    h('div', { class: 'checks' }, spec.options.map(([optionValue, label]) =>
      h('label', { class: 'check' },
        h('input', { type: radio ? 'radio' : 'checkbox', name: radio ? id : undefined, value: optionValue, checked: chosen.has(optionValue) }), ' ', label))),
    spec.help ? h('p', { class: 'field-help', id: `${id}-help` }, spec.help) : null,
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }));
}

function fieldElement(spec, rule, options) {
  const value = fieldValue(spec, rule);
  if (spec.kind === 'multi' || spec.kind === 'radio') return groupField(spec, value);
  const input = control(spec, value, { ...options, rule });
  const label = spec.unit ? `${spec.label} (${spec.unit})` : spec.label;
  if (spec.kind === 'bool') {
    input.id = fieldId(spec);
    return h('div', { class: 'field field-check', dataset: { field: fieldId(spec) } },
      h('div', { class: 'check-row' }, input, h('label', { for: fieldId(spec) }, label)),
      h('p', { class: 'field-help', id: `${fieldId(spec)}-help` }, spec.help),
      h('p', { class: 'field-error', id: `${fieldId(spec)}-error`, hidden: true }));
  }
  return field({ id: fieldId(spec), label, control: input, help: spec.help, wide: spec.kind === 'list' || spec.wide });
}

/** The form's sections and fields for `rule`; options: {apps, saved, choices: {path: bundleId => [[value, label]]}}. */
export function buildFields(rule, options, schema) {
  return schema.sections.map(section => h('fieldset', { class: 'section', dataset: { section: section.id } },
    h('legend', null, section.title),
    section.intro ? h('p', { class: 'section-intro' }, section.intro) : null,
    h('div', { class: 'fields' }, schema.fields.filter(spec => spec.section === section.id).map(spec => fieldElement(spec, rule, options)))));
}

/** The value the controls give one field, `before` its stored value. */
function readControl(form, spec, before) {
  const id = fieldId(spec);
  if (spec.kind === 'multi') {
    const picked = [...form.querySelectorAll(`#${id} input:checked`)].map(box => Number(box.value));
    return picked.length ? picked : undefined;
  }
  if (spec.kind === 'radio') return form.querySelector(`#${id} input:checked`)?.value ?? spec.options[0][0];
  const input = form.querySelector(`#${id}`);
  switch (spec.kind) {
    case 'bool':
      return input.checked ? true : (before === false || spec.explicit ? false : undefined);
    case 'int': {
      const text = input.value.trim();
      // Anything but a whole number goes to the service as typed, which says what is wrong.
      return text === '' ? undefined : (/^-?\d+$/.test(text) ? Number(text) : text);
    }
    case 'datetime':
      return input.value ? `${input.value.length === 16 ? `${input.value}:00` : input.value}Z` : null;
    case 'list': {
      const items = input.value.split(/[\s,]+/).map(item => item.trim()).filter(Boolean).map(item => (spec.upper ? item.toUpperCase() : item));
      return items.length || spec.required ? items : undefined;
    }
    case 'choice':
    case 'pick':
      return input.value === '' ? undefined : input.value;
    default: {
      const text = input.value.trim();
      return text === '' && spec.optional ? undefined : text;
    }
  }
}

/** Whether a field is shown: always, or when the field it depends on has one of its values. */
function shown(form, spec, schema) {
  if (!spec.when) return true;
  const [path, values] = spec.when;
  const controlling = schema.fields.find(f => f.path === path);
  return shown(form, controlling, schema) && values.includes(readControl(form, controlling, undefined));
}

/** The rule the controls describe, starting from `original` so unknown fields are kept. */
export function readRule(form, original, schema) {
  const rule = structuredClone(original);
  delete rule.createdAt; delete rule.updatedAt; delete rule.version;
  const virtual = {};
  for (const spec of schema.fields) {
    const value = shown(form, spec, schema) ? readControl(form, spec, getPath(original, spec.path)) : undefined;
    if (spec.virtual) virtual[spec.path] = value; else setPath(rule, spec.path, value);
  }
  if (schema.finish) schema.finish(rule, virtual);
  return rule;
}

/** What the form lacks before it can be sent: a shown field marked `needed` left empty (its message). */
export function missingFields(form, schema) {
  return schema.fields.filter(spec => spec.needed && shown(form, spec, schema)
    && [undefined, null, ''].includes(readControl(form, spec, undefined))).map(spec => spec.needed);
}

/**
 * Keeps the form in step with itself: fields shown only for some value of another appear and
 * disappear as that value changes, and options that depend on the app follow it. Calls
 * `onChange` after every change.
 */
export function wireForm(form, schema, { choices = {}, onChange } = {}) {
  const update = event => {
    for (const spec of schema.fields) {
      const element = form.querySelector(`[data-field="${fieldId(spec)}"]`);
      if (element) element.hidden = !shown(form, spec, schema);
    }
    if (event?.target?.id === 'f-bundleId') {
      for (const spec of schema.fields.filter(f => f.kind === 'pick')) {
        const select = form.querySelector(`#${fieldId(spec)}`);
        select.replaceChildren(...pickOptions(spec, '', choices, event.target.value).flat().filter(Boolean));
      }
    }
    if (onChange) onChange();
  };
  form.addEventListener('change', update);
  form.addEventListener('input', () => onChange && onChange());
  update();
}

/** Clears every field error and the summary. */
export function clearErrors(form, summary, schema) {
  clearErrorSummary(form, summary, schema.fields.map(fieldId));
}

/** The service's message with each quoted field path ('eligibility.minPaidDays') named as the form names it. */
export function humanize(message, schema) {
  return message.replace(/'([A-Za-z][A-Za-z0-9_.\[\]]*)'/g, (whole, path) => {
    const spec = schema.fields.find(f => !f.virtual && f.path === path.replace(/\[\d+\]/g, ''));
    return spec ? `“${spec.label}”` : whole;
  });
}

/**
 * Shows the service's messages: each next to the field it names, and all of them in the
 * summary at the top with links to the fields (error-summary.js). Focuses the summary.
 */
export function showErrors(form, summary, messages, title, schema) {
  showErrorSummary(form, summary, { title, messages, ids: schema.fields.map(fieldId), resolve: message => {
    const spec = fieldForMessage(message, schema);
    return { id: spec ? fieldId(spec) : null, words: humanize(message, schema) };
  } });
}

/** A readable value of a rule field, for diffs and summaries. */
export function displayValue(spec, value) {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && !value.length)) return spec?.unset || 'not set';
  if (!spec) return typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (spec.format) return spec.format(value);
  switch (spec.kind) {
    case 'bool': return value ? 'yes' : 'no';
    case 'datetime': return dateTime(value);
    case 'list': return value.join(', ');
    case 'order': return value.map((item, index) => `${index + 1}. ${item}`).join(', ');
    case 'multi': return value.map(v => spec.options.find(([o]) => o === v)?.[1] || String(v)).join(', ');
    case 'choice':
    case 'radio': return spec.options.find(([o]) => o === value)?.[1] || String(value);
    case 'int': return spec.unit ? `${value} ${spec.unit}` : String(value);
    default: return String(value);
  }
}
