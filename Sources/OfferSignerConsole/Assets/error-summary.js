// A form's refusals, shown one way in every editor: each message beside the field it is about
// and all of them in the summary at the top of the form, linked to their fields, the summary
// focused. A resolver says which field a message is about and in which words (rule-form.js
// resolves a rule schema's quoted paths; other editors pass their own).
import { h, setFieldError } from './dom.js';

/** The ids of every error slot (`<id>-error`) in `form`. */
function errorIds(form) {
  return [...form.querySelectorAll('.field-error[id$="-error"]')].map(element => element.id.replace(/-error$/, ''));
}

/** Shows (or, with no message, clears) the error of field `id`: through `setFieldError`, or straight into its slot. */
function mark(form, id, message) {
  if (setFieldError(form, id, message)) return;
  const slot = form.querySelector(`#${CSS.escape(id)}-error`);
  if (!slot) return;
  slot.textContent = message || '';
  slot.hidden = !message;
  const control = form.querySelector(`#${CSS.escape(id)}`);
  if (message) control?.setAttribute('aria-invalid', 'true'); else control?.removeAttribute('aria-invalid');
}

/** Clears the summary and the errors of the fields `ids` (every error slot of the form when not given). */
export function clearErrorSummary(form, summary, ids = errorIds(form)) {
  for (const id of ids) mark(form, id, '');
  summary.replaceChildren();
  summary.hidden = true;
}

/**
 * Shows `messages` under `title`. `resolve(message)` answers `{ id, words }`: the id of the
 * field the message is about (its error slot is `<id>-error`; none: only in the summary) and the
 * words shown (the message itself when absent). `ids`: the fields cleared first (every error
 * slot of the form when not given).
 */
export function showErrorSummary(form, summary, { title, messages, resolve = () => null, ids }) {
  clearErrorSummary(form, summary, ids);
  const byField = new Map();
  const items = messages.map(message => {
    const found = resolve(message) || {};
    const words = found.words || (typeof message === 'string' ? message : String(message?.words ?? ''));
    const id = found.id && form.querySelector(`#${CSS.escape(found.id)}-error`) ? found.id : null;
    if (!id) return h('li', null, words);
    byField.set(id, [...(byField.get(id) || []), words]);
    return h('li', null, h('a', { href: `#${id}`, onclick: event => {
      event.preventDefault();
      const target = form.querySelector(`#${CSS.escape(id)}`);
      (target?.matches('fieldset')
        ? target.querySelector('input:not(:disabled):not([readonly]), select:not(:disabled), button:not(:disabled)') : target)?.focus();
    } }, words));
  });
  for (const [id, list] of byField) mark(form, id, list.join(' '));
  summary.append(h('h2', null, title), h('ul', null, items));
  summary.hidden = false;
  summary.focus();
}

/** Clears a field's error as soon as its value is changed (the summary stays until the next attempt). */
export function clearErrorWhenEdited(form) {
  const clear = event => {
    const holder = event.target.closest?.('.field, .field-multi');
    const slot = holder?.querySelector('.field-error[id$="-error"]');
    if (slot && !slot.hidden) mark(form, slot.id.replace(/-error$/, ''), '');
  };
  form.addEventListener('input', clear);
  form.addEventListener('change', clear);
}
