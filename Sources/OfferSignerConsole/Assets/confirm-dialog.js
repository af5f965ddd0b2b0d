// A confirmation before an action that cannot be undone: a modal dialog that says what will
// happen, with the action's own name on its button and Cancel (Escape) beside it.
import { h } from './dom.js';

/** Opens the dialog; `action` runs (awaited, the buttons disabled meanwhile) only when confirmed. */
export function confirmDialog({ title, body = [], confirm, danger = false, action }) {
  const titleId = 'confirm-title';
  const cancel = h('button', { type: 'button', class: 'button', onclick: () => dialog.close() }, 'Cancel');
  const go = h('button', { type: 'button', class: ['button', danger ? 'button-danger' : 'button-primary'], id: 'confirm-action', onclick: async () => {
    go.disabled = true;
    cancel.disabled = true;
    try {
      await action();
    } finally {
      dialog.close();
    }
  } }, confirm);
  const dialog = h('dialog', { class: 'confirm-dialog', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, title),
    body.map(text => h('p', null, text)),
    h('div', { class: 'actions' }, go, cancel));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  return dialog;
}
