// The offer editor's form, built from OFFER_FIELDS: controls from rule values, a rule from
// the controls (keeping any field the console does not know), and the service's errors
// placed next to the fields they name.
import { h, field, setFieldError } from './dom.js';
import { OFFER_FIELDS, SECTIONS, getPath, setPath, fieldForMessage } from './offer-fields.js';
import { dateTime } from './format.js';

export function fieldId(spec) {
  return `f-${spec.path.replace(/\./g, '-')}`;
}

function toLocalInput(value) {
  return value ? String(value).replace(/Z$/, '').slice(0, 16) : '';
}

function control(spec, value, { apps, saved }) {
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
    case 'app': {
      const options = apps.includes(value) || !value ? apps : [value, ...apps];
      return h('select', { disabled: saved || options.length < 2 }, options.map(app => h('option', { value: app, selected: app === value }, app)));
    }
    default:
      return h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: value ?? '', readonly: fixed || undefined });
  }
}

function multiField(spec, value) {
  const id = fieldId(spec);
  const chosen = new Set(value || []);
  return h('fieldset', { class: 'field field-wide field-multi', dataset: { field: id }, id, 'aria-describedby': `${id}-help ${id}-error` },
    h('legend', null, spec.label),
    h('div', { class: 'checks' }, spec.options.map(([optionValue, label]) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', value: optionValue, checked: chosen.has(optionValue) }), ' ', label))),
    h('p', { class: 'field-help', id: `${id}-help` }, spec.help),
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }));
}

/** The form's sections and fields for `rule`. */
export function buildFields(rule, options) {
  return SECTIONS.map(section => h('fieldset', { class: 'section' },
    h('legend', null, section.title),
    h('p', { class: 'section-intro' }, section.intro),
    h('div', { class: 'fields' }, OFFER_FIELDS.filter(spec => spec.section === section.id).map(spec => {
      const value = getPath(rule, spec.path);
      if (spec.kind === 'multi') return multiField(spec, value);
      const input = control(spec, value, options);
      const label = spec.unit ? `${spec.label} (${spec.unit})` : spec.label;
      if (spec.kind === 'bool') {
        input.id = fieldId(spec);
        return h('div', { class: 'field field-check', dataset: { field: fieldId(spec) } },
          h('div', { class: 'check-row' }, input, h('label', { for: fieldId(spec) }, label)),
          h('p', { class: 'field-help', id: `${fieldId(spec)}-help` }, spec.help),
          h('p', { class: 'field-error', id: `${fieldId(spec)}-error`, hidden: true }));
      }
      return field({ id: fieldId(spec), label, control: input, help: spec.help, wide: spec.kind === 'list' });
    }))));
}

/** The rule the controls describe, starting from `original` so unknown fields are kept. */
export function readRule(form, original) {
  const rule = structuredClone(original);
  delete rule.createdAt; delete rule.updatedAt; delete rule.version;
  for (const spec of OFFER_FIELDS) {
    const id = fieldId(spec);
    const before = getPath(original, spec.path);
    let value;
    if (spec.kind === 'multi') {
      const picked = [...form.querySelectorAll(`#${id} input:checked`)].map(box => Number(box.value));
      value = picked.length ? picked : undefined;
    } else {
      const input = form.querySelector(`#${id}`);
      switch (spec.kind) {
        case 'bool':
          value = input.checked ? true : (before === false || spec.path === 'enabled' ? false : undefined);
          break;
        case 'int': {
          const text = input.value.trim();
          // Anything but a whole number goes to the service as typed, which says what is wrong.
          value = text === '' ? undefined : (/^-?\d+$/.test(text) ? Number(text) : text);
          break;
        }
        case 'datetime':
          value = input.value ? `${input.value.length === 16 ? `${input.value}:00` : input.value}Z` : null;
          break;
        case 'list': {
          const items = input.value.split(/[\s,]+/).map(item => item.trim()).filter(Boolean).map(item => (spec.upper ? item.toUpperCase() : item));
          value = items.length || spec.required ? items : undefined;
          break;
        }
        case 'choice':
          value = input.value === '' ? undefined : input.value;
          break;
        default:
          value = input.value.trim();
      }
    }
    setPath(rule, spec.path, value);
  }
  for (const group of ['eligibility', 'limits']) if (!rule[group]) rule[group] = {};
  return rule;
}

/** Clears every field error and the summary. */
export function clearErrors(form, summary) {
  for (const spec of OFFER_FIELDS) setFieldError(form, fieldId(spec), '');
  summary.replaceChildren();
  summary.hidden = true;
}

/** The service's message with each quoted field path ('eligibility.minPaidDays') named as the form names it. */
export function humanize(message) {
  return message.replace(/'([A-Za-z][A-Za-z0-9_.\[\]]*)'/g, (whole, path) => {
    const spec = OFFER_FIELDS.find(f => f.path === path.replace(/\[\d+\]/g, ''));
    return spec ? `“${spec.label}”` : whole;
  });
}

/**
 * Shows the service's messages: each next to the field it names, and all of them in the
 * summary at the top with links to the fields. Focuses the summary.
 */
export function showErrors(form, summary, messages, title = 'The offer was not saved') {
  clearErrors(form, summary);
  const byField = new Map();
  const items = messages.map(message => {
    const spec = fieldForMessage(message);
    if (spec) {
      const id = fieldId(spec);
      byField.set(id, [...(byField.get(id) || []), message]);
      return h('li', null, h('a', { href: `#${id}`, onclick: event => {
        event.preventDefault();
        const target = form.querySelector(`#${id}`);
        (target.matches('fieldset') ? target.querySelector('input') : target)?.focus();
      } }, humanize(message)));
    }
    return h('li', null, humanize(message));
  });
  for (const [id, list] of byField) setFieldError(form, id, list.map(humanize).join(' '));
  summary.append(h('h2', null, title), h('ul', null, items));
  summary.hidden = false;
  summary.focus();
}

/** A readable value of a rule field, for diffs. */
export function displayValue(spec, value) {
  if (value === undefined || value === null || (Array.isArray(value) && !value.length)) return 'not set';
  if (!spec) return typeof value === 'object' ? JSON.stringify(value) : String(value);
  switch (spec.kind) {
    case 'bool': return value ? 'yes' : 'no';
    case 'datetime': return dateTime(value);
    case 'list': return value.join(', ');
    case 'multi': return value.map(v => spec.options.find(([o]) => o === v)?.[1] || String(v)).join(', ');
    case 'choice': return spec.options.find(([o]) => o === value)?.[1] || String(value);
    case 'int': return spec.unit ? `${value} ${spec.unit}` : String(value);
    default: return String(value);
  }
}
