// Building the page safely: every value becomes a text node or an attribute set through
// the DOM, never parsed as HTML (the console never assigns markup); event handlers are functions
// passed here, never attributes, so a value from outside can never run.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name.startsWith('on')) {
      throw new Error('event handlers must be functions');
    } else if (name === 'class') {
      el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (name === 'value' && 'value' in el) {
      el.value = value;
    } else if (name === 'checked' || name === 'selected' || name === 'disabled' || name === 'hidden') {
      el[name] = Boolean(value);
      if (name === 'disabled' || name === 'hidden') el.toggleAttribute(name, Boolean(value));
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h('p', {class: 'x'}, 'text', child…). Strings become text. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  return append(el, children);
}

/** An SVG element, the same way. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null) continue;
    if (name.startsWith('on')) throw new Error('no event handlers on SVG here');
    el.setAttribute(name, String(value));
  }
  return append(el, children);
}

/** Replaces the children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let idCounter = 0;
/** A fresh element id with `prefix`. */
export function uid(prefix = 'id') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A short message in the polite live region, gone after a few seconds. */
export function toast(text, kind = 'info') {
  const region = document.getElementById('toasts');
  const item = h('div', { class: ['toast', `toast-${kind}`] }, text);
  region.append(item);
  while (region.children.length > 2) region.firstElementChild.remove();
  setTimeout(() => item.remove(), 4000);
}

/** A labelled form control: label, control, help text and an error slot, wired for screen readers. */
export function field({ id, label, control, help, error, wide }) {
  const helpId = help ? `${id}-help` : null;
  const errorId = `${id}-error`;
  control.id = id;
  const describedBy = [helpId, errorId].filter(Boolean).join(' ');
  control.setAttribute('aria-describedby', describedBy);
  const errorEl = h('p', { class: 'field-error', id: errorId, hidden: !error }, error || '');
  return h('div', { class: ['field', wide && 'field-wide'], dataset: { field: id } },
    h('label', { for: id }, label),
    control,
    help ? h('p', { class: 'field-help', id: helpId }, help) : null,
    errorEl);
}

/** Shows or clears the error of a field made by `field()`. */
export function setFieldError(container, id, message) {
  const errorEl = container.querySelector(`#${CSS.escape(id)}-error`);
  const control = container.querySelector(`#${CSS.escape(id)}`);
  if (!errorEl || !control) return false;
  errorEl.textContent = message || '';
  errorEl.hidden = !message;
  if (message) control.setAttribute('aria-invalid', 'true'); else control.removeAttribute('aria-invalid');
  errorEl.closest('.field')?.classList.toggle('has-error', Boolean(message));
  return true;
}

/** A table from column definitions [{label, value: row => text|Node, class}] and rows. */
export function table({ caption, columns, rows, onRowClick, rowLabel, empty = 'Nothing to show.' }) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h('div', { class: 'table-wrap' },
    h('table', { class: ['data', onRowClick && 'clickable'] },
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h('thead', null, h('tr', null, columns.map(c => h('th', { scope: 'col', class: c.class }, c.label)))),
      h('tbody', null, rows.map(row => {
        const cells = columns.map((c, i) => {
          const content = c.value(row);
          if (i === 0 && onRowClick) {
            return h('th', { scope: 'row', class: c.class, 'data-label': c.label },
              h('a', { href: onRowClick(row), 'aria-label': rowLabel ? rowLabel(row) : undefined }, content));
          }
          return h('td', { class: c.class, 'data-label': c.label }, content);
        });
        return h('tr', null, cells);
      }))));
}
