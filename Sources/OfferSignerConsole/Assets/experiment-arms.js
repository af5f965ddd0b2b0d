// The arms of an experiment: each a name, an offer of the app or none (a no-offer control)
// and a weight, the first the control every other arm is compared with. While the experiment
// runs only the weights may change (`frozen`).
import { h, replace, field } from './dom.js';
import { shares } from './experiment-fields.js';

export const MAX_ARMS = 10;

/**
 * The control: a form section `#f-arms` (its error slot `#f-arms-error`) with a row per arm
 * (`#f-arm-N-armId`, `#f-arm-N-offerId`, `#f-arm-N-weight`, each with its error slot).
 * `offers` = [[offerId, label]] of the app; `onChange` runs after every change.
 */
export function armsEditor({ arms, offers, frozen = false, onChange }) {
  let rows = arms.map(arm => ({ ...arm }));
  let choices = offers;
  const list = h('div', { class: 'arm-list' });
  const addButton = h('button', { type: 'button', class: 'button', onclick: add, hidden: frozen }, 'Add an arm');
  const announce = h('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const element = h('fieldset', { class: ['section', 'field-arms'], id: 'f-arms', dataset: { field: 'f-arms' }, 'aria-describedby': 'f-arms-help f-arms-error' },
    h('legend', null, 'Arms'),
    h('p', { class: 'section-intro', id: 'f-arms-help' }, frozen
      ? 'The experiment is running: only the weights may change, and new weights apply only to users not yet assigned.'
      : 'Each user who reaches the placement is assigned an arm once, at random in proportion to the weights, and keeps it. The first arm is the control every other arm is compared with: choose “No offer” to measure an offer against giving none.'),
    h('p', { class: 'field-error', id: 'f-arms-error', hidden: true }),
    list,
    h('div', { class: 'actions' }, addButton),
    announce);

  /** The rows as the inputs stand. */
  function read() {
    rows = rows.map((row, index) => {
      const weightText = list.querySelector(`#f-arm-${index}-weight`)?.value.trim() ?? String(row.weight);
      const weight = weightText === '' ? NaN : Number(weightText);
      return {
        armId: list.querySelector(`#f-arm-${index}-armId`)?.value.trim() ?? row.armId,
        offerId: (list.querySelector(`#f-arm-${index}-offerId`)?.value ?? row.offerId ?? '') || null,
        weight: Number.isFinite(weight) ? weight : weightText,
      };
    });
    return rows;
  }

  function add() {
    read();
    const used = new Set(rows.map(row => row.offerId));
    const next = choices.find(([offerId]) => !used.has(offerId));
    rows.push({ armId: `arm_${rows.length + 1}`, offerId: next ? next[0] : null, weight: 1 });
    draw();
    announce.textContent = `Arm ${rows.length} added.`;
    list.querySelector(`#f-arm-${rows.length - 1}-armId`)?.focus();
    if (onChange) onChange();
  }

  function remove(index) {
    read();
    const [gone] = rows.splice(index, 1);
    draw();
    announce.textContent = `Arm ${gone.armId || index + 1} removed.`;
    (list.querySelector(`#f-arm-${Math.min(index, rows.length - 1)}-armId`) || addButton).focus();
    if (onChange) onChange();
  }

  function drawShares() {
    const shown = shares(rows);
    rows.forEach((row, index) => {
      const share = list.querySelector(`#f-arm-${index}-share`);
      if (share) share.textContent = `${shown[index]} of new users`;
    });
  }

  function draw() {
    replace(list, rows.map((row, index) => {
      const armId = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: row.armId, readonly: frozen || undefined });
      const known = !row.offerId || choices.some(([offerId]) => offerId === row.offerId);
      const offer = h('select', { disabled: frozen },
        h('option', { value: '', selected: !row.offerId }, 'No offer (a no-offer control)'),
        known ? null : h('option', { value: row.offerId, selected: true }, `${row.offerId} (not an offer of this app)`),
        choices.map(([offerId, label]) => h('option', { value: offerId, selected: offerId === row.offerId }, label)));
      const weight = h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', value: String(row.weight), class: 'input-short' });
      const removeButton = frozen ? null : h('button', { type: 'button', class: 'button button-small button-quiet', disabled: rows.length <= 2,
        'aria-label': `Remove arm ${index + 1}`, onclick: () => remove(index) }, 'Remove');
      return h('div', { class: 'arm-row', dataset: { arm: String(index) } },
        h('p', { class: 'arm-head' }, h('strong', null, `Arm ${index + 1}`), index === 0 ? h('span', { class: 'badge badge-scheduled' }, 'control') : null,
          h('span', { class: 'muted arm-share', id: `f-arm-${index}-share` }), removeButton),
        h('div', { class: 'arm-fields' },
          field({ id: `f-arm-${index}-armId`, label: 'Arm ID', control: armId }),
          field({ id: `f-arm-${index}-offerId`, label: 'Offer', control: offer }),
          field({ id: `f-arm-${index}-weight`, label: 'Weight', control: weight })));
    }));
    addButton.disabled = rows.length >= MAX_ARMS;
    drawShares();
  }

  list.addEventListener('input', () => { read(); drawShares(); });
  draw();
  return {
    element,
    /** The arms as the form has them. */
    value: () => read().map(row => ({ ...row })),
    /** Another app's offers: arms keep their names and weights, offers not of the app are cleared. */
    reset(newOffers) {
      read();
      choices = newOffers;
      rows = rows.map(row => ({ ...row, offerId: choices.some(([offerId]) => offerId === row.offerId) ? row.offerId : null }));
      draw();
    },
  };
}
