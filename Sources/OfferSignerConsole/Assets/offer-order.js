// An ordered list of the app's offers, picked from its offer rules and reordered with buttons
// (keyboard and screen-reader friendly: each move is announced and keeps the focus on the
// offer moved). Used by the placement editor for `offerIds`.
import { h, replace } from './dom.js';
import { stateOf, PASSED_OVER } from './placement-fields.js';
import { stateBadge } from './view-offers.js';

const ORDER = { live: 0, scheduled: 1, ended: 2, disabled: 3 };

/**
 * The control: a form section, the fieldset `#${id}` (its error slot `#${id}-error`) holding the list, and a
 * select to add one of the app's other offers. `known` is offersOf(...) of the app;
 * `onChange` runs after every change.
 */
export function offerOrder({ id, label, help, offerIds, known, onChange }) {
  let items = [...offerIds];
  let offers = known;
  let faulty = new Set();
  const list = h('ol', { class: 'order-list', id: `${id}-list` });
  const announce = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const picker = h('select', { id: `${id}-add` });
  const addButton = h('button', { type: 'button', class: 'button', onclick: add }, 'Add');
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const helpId = `${id}-help`;
  const element = h('fieldset', { class: ['section', 'field-order'], id, dataset: { field: id }, 'aria-describedby': `${helpId} ${id}-error` },
    h('legend', null, label),
    h('p', { class: 'section-intro', id: helpId }, help),
    error,
    list,
    h('div', { class: 'order-add' },
      h('label', { for: `${id}-add` }, 'Add an offer'),
      h('div', { class: 'order-add-row' }, picker, addButton)),
    announce);

  function changed(message, focus) {
    faulty = new Set();
    draw(focus);
    if (message) announce.textContent = message;
    if (onChange) onChange();
  }

  function move(index, by, which) {
    const target = index + by;
    if (target < 0 || target >= items.length) return;
    const [offerId] = items.splice(index, 1);
    items.splice(target, 0, offerId);
    changed(`${offerId} moved to position ${target + 1} of ${items.length}.`, { offerId, which });
  }

  function remove(index) {
    const [offerId] = items.splice(index, 1);
    changed(`${offerId} removed.`, { picker: true });
  }

  function add() {
    const offerId = picker.value;
    if (!offerId || items.includes(offerId)) return;
    items.push(offerId);
    changed(`${offerId} added at position ${items.length}.`, { picker: true });
  }

  function draw(focus) {
    replace(list, items.length ? items.map((offerId, index) => {
      const state = stateOf(offers, offerId);
      const up = h('button', { type: 'button', class: 'button button-small', 'aria-label': `Move ${offerId} up`, disabled: index === 0,
        dataset: { move: 'up' }, onclick: () => move(index, -1, index - 1 === 0 ? 'down' : 'up') }, '↑');
      const down = h('button', { type: 'button', class: 'button button-small', 'aria-label': `Move ${offerId} down`, disabled: index === items.length - 1,
        dataset: { move: 'down' }, onclick: () => move(index, 1, index + 1 === items.length - 1 ? 'up' : 'down') }, '↓');
      const removeButton = h('button', { type: 'button', class: 'button button-small button-quiet', 'aria-label': `Remove ${offerId}`,
        dataset: { move: 'remove' }, onclick: () => remove(index) }, 'Remove');
      return h('li', { class: ['order-item', faulty.has(index) && 'order-faulty'], dataset: { offerId } },
        h('span', { class: 'order-position', 'aria-hidden': 'true' }, String(index + 1)),
        h('span', { class: 'order-offer' },
          h('span', { class: 'order-id' }, offerId), ' ',
          state === 'missing' ? h('span', { class: ['badge', 'badge-disabled'] }, 'no such offer') : stateBadge(state),
          PASSED_OVER[state] ? h('span', { class: 'order-note' }, PASSED_OVER[state]) : null),
        h('span', { class: 'order-buttons' }, up, down, removeButton));
    }) : h('li', { class: 'order-empty' }, 'No offers yet: add the offers this moment may show, the best first.'));
    const others = [...offers.values()].filter(({ rule }) => !items.includes(rule.offerId))
      .sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.rule.offerId.localeCompare(b.rule.offerId));
    replace(picker, others.length
      ? [h('option', { value: '' }, 'Choose one of the app’s offers…'), others.map(({ rule, state }) => h('option', { value: rule.offerId }, `${rule.offerId} (${state})`))]
      : h('option', { value: '' }, items.length ? 'Every offer of the app is listed' : 'The app has no offers yet'));
    picker.disabled = !others.length;
    addButton.disabled = !others.length;
    if (focus?.picker) {
      (picker.disabled ? list.querySelector('button:not(:disabled)') || picker : picker).focus();
    } else if (focus) {
      const row = [...list.children].find(li => li.dataset.offerId === focus.offerId);
      row?.querySelector(`[data-move="${focus.which}"]:not(:disabled)`)?.focus();
    }
  }

  draw();
  return {
    element,
    /** The offers in their order. */
    value: () => [...items],
    /** Another app's offers: the list starts again empty. */
    reset(newOffers) {
      offers = newOffers;
      items = [];
      changed();
    },
    /** Marks the offers at these positions (0-based), e.g. those the service's errors name. */
    mark(indices) {
      faulty = new Set(indices);
      draw();
    },
  };
}
