// One webhook (administrators only): create or change it (URL, event types, apps, enabled),
// its signing secret — shown once, right after it is made or rotated, with a copy button —,
// rotate the secret, delete the webhook (each confirmed first), its deliveries with retry and
// replay, and its recorded changes.
import { api, path, ApiError } from './api.js';
import { h, replace, toast, field } from './dom.js';
import { clearErrorSummary, showErrorSummary } from './error-summary.js';
import { dateTime, relative } from './format.js';
import { problemTitle } from './problems.js';
import { confirmDialog } from './confirm-dialog.js';
import { deliveriesPanel } from './webhook-deliveries.js';
import { WEBHOOKS_API, EVENT_TYPES, holdSecret, takeSecret, webhookBadge } from './webhook-fields.js';

const CHANGE_WORDS = { created: 'Created', updated: 'Changed', deleted: 'Deleted', 'secret-rotated': 'Secret rotated', retried: 'Delivery retried', replayed: 'Events replayed' };

/** The field a service message is about: 'url', 'events', 'bundleIds' or the ID. */
function fieldOf(message) {
  if (/'events'|is not an event type|named twice in 'events'/.test(message)) return 'f-events';
  if (/'bundleIds'|no app with bundleId/.test(message)) return 'f-bundleIds';
  if (/webhook ID/.test(message)) return 'f-id';
  if (/'url'|URL|https|address/i.test(message)) return 'f-url';
  return null;
}

/** The one-time secret: a warning, the secret in a read-only box, a copy button, and "stored" to put it away. */
function secretPanel(webhook, held) {
  const box = h('textarea', { id: 'webhook-secret', readonly: true, rows: '1', value: held.secret, spellcheck: 'false', autocomplete: 'off', class: 'secret-box', 'aria-describedby': 'secret-warning' });
  const status = h('p', { class: 'copy-status', id: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button', class: 'button button-primary', id: 'copy-secret', onclick: async () => {
    let copied = false;
    try {
      await navigator.clipboard.writeText(held.secret);
      copied = true;
    } catch {
      box.focus();
      box.select();
      try { copied = document.execCommand('copy'); } catch { copied = false; }
    }
    status.textContent = copied ? 'Copied to the clipboard.' : 'The browser did not allow copying: the secret is selected, press Ctrl+C (⌘C on a Mac).';
  } }, 'Copy secret');
  const panel = h('section', { class: ['panel', 'secret-once'], id: 'secret-once', 'aria-labelledby': 'secret-once-title', tabindex: '-1' },
    h('h2', { id: 'secret-once-title' }, held.how === 'rotated' ? 'The new signing secret' : 'The signing secret'),
    h('p', { class: 'notice notice-warn', id: 'secret-warning' },
      h('strong', null, 'Copy it now: it is shown only this once. '),
      'Leave this page and it is gone; the service keeps no way to show it again, only its last four characters. Put it in your receiver’s configuration, where it checks the Offer-Signer-Signature header.'),
    held.how === 'rotated' && webhook.previousSecretExpiresAt
      ? h('p', null, `The previous secret stays valid until ${dateTime(webhook.previousSecretExpiresAt)}: until then every delivery is signed with both, so you can update the receiver without losing events.`)
      : null,
    h('div', { class: 'secret-row' }, h('label', { for: 'webhook-secret', class: 'visually-hidden' }, 'Signing secret'), box, copy),
    status,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', id: 'secret-stored', onclick: () => {
      const heading = panel.closest('.page')?.querySelector('h1');
      panel.remove();
      heading?.focus();
    } }, 'I have stored it')));
  return panel;
}

export async function renderWebhookEditor(main, { me, webhookId, navigate, href }) {
  const apps = me.apps || [];
  replace(main, h('div', { class: 'page' }, h('h1', null, webhookId ? `Webhook ${webhookId}` : 'New webhook'), h('p', { class: 'loading' }, 'Loading…')));
  let stored = null;
  if (webhookId) {
    try {
      stored = await api('GET', path(WEBHOOKS_API, webhookId));
    } catch (error) {
      if (error.status !== 404) throw error;
      takeSecret(webhookId);
      replace(main, h('div', { class: 'page' }, h('h1', null, 'No such webhook'),
        h('p', null, 'There is no webhook ', h('code', null, webhookId), '.'), h('a', { href: href(['webhooks']) }, 'Back to webhooks')));
      return;
    }
  }
  const held = stored ? takeSecret(stored.id) : null;
  const original = stored || { id: '', url: '', events: ['offer.signed'], bundleIds: null, enabled: true };

  const idInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: original.id, readonly: stored ? true : undefined });
  const urlInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: original.url, inputmode: 'url' });
  const known = new Set(EVENT_TYPES.map(([value]) => value));
  const eventOptions = [...EVENT_TYPES, ...original.events.filter(type => !known.has(type)).map(type => [type, type, ''])];
  const events = h('fieldset', { class: ['field', 'field-wide', 'field-multi'], id: 'f-events', dataset: { field: 'f-events' }, 'aria-describedby': 'f-events-help f-events-error' },
    h('legend', null, 'Events'),
    h('div', { class: 'checks checks-events' }, eventOptions.map(([value, label, help]) => h('label', { class: 'check check-event' },
      h('input', { type: 'checkbox', name: 'webhook-event', value, checked: original.events.includes(value) }),
      h('span', null, h('span', { class: 'check-label' }, label), ' ', h('code', null, value), help ? h('span', { class: 'check-help' }, help) : null)))),
    h('p', { class: 'field-help', id: 'f-events-help' }, 'Only events of the ticked types are queued for this webhook.'),
    h('p', { class: 'field-error', id: 'f-events-error', hidden: true }));
  const chosenApps = new Set(original.bundleIds || []);
  const appChoices = [...new Set([...apps, ...chosenApps])];
  const everyApp = h('input', { type: 'radio', name: 'webhook-apps', value: 'every', checked: !original.bundleIds });
  const someApps = h('input', { type: 'radio', name: 'webhook-apps', value: 'some', checked: Boolean(original.bundleIds) });
  const appBoxes = h('div', { class: 'checks app-checks' }, appChoices.map(app => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'webhook-app', value: app, checked: chosenApps.has(app) }), ' ', app)));
  const appsField = h('fieldset', { class: ['field', 'field-wide', 'field-multi', 'field-radio'], id: 'f-bundleIds', dataset: { field: 'f-bundleIds' }, 'aria-describedby': 'f-bundleIds-error' },
    h('legend', null, 'Apps'),
    h('div', { class: 'checks' },
      h('label', { class: 'check' }, everyApp, ' Every app, including apps configured later'),
      h('label', { class: 'check' }, someApps, ' Only these apps:')),
    appBoxes,
    h('p', { class: 'field-error', id: 'f-bundleIds-error', hidden: true }));
  const enabledBox = h('input', { type: 'checkbox', id: 'f-enabled', checked: original.enabled });
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const form = h('form', { class: 'offer-form webhook-form', novalidate: true }, summary,
    h('fieldset', { class: 'section' },
      h('legend', null, 'Webhook'),
      h('p', { class: 'section-intro' }, 'Where events are posted, which of them, and for which apps.'),
      h('div', { class: 'fields' },
        field({ id: 'f-id', label: 'Webhook ID', control: idInput, help: 'A name for it, e.g. crm or analytics. It cannot be changed after saving.' }),
        field({ id: 'f-url', label: 'URL', control: urlInput, wide: true,
          help: 'An https address of your receiver on the public internet (plain http only to this machine, for development). Redirects are not followed.' }),
        events,
        appsField,
        h('div', { class: 'field field-check', dataset: { field: 'f-enabled' } },
          h('div', { class: 'check-row' }, enabledBox, h('label', { for: 'f-enabled' }, 'Enabled')),
          h('p', { class: 'field-help', id: 'f-enabled-help' }, 'A disabled webhook gets no new events; those already queued are still delivered.'),
          h('p', { class: 'field-error', id: 'f-enabled-error', hidden: true })))));

  function syncApps() {
    for (const box of appBoxes.querySelectorAll('input')) box.disabled = everyApp.checked;
  }
  everyApp.addEventListener('change', syncApps);
  someApps.addEventListener('change', syncApps);
  syncApps();

  function read() {
    return {
      url: urlInput.value.trim(),
      events: [...events.querySelectorAll('input:checked')].map(box => box.value),
      ...(someApps.checked ? { bundleIds: [...appBoxes.querySelectorAll('input:checked')].map(box => box.value) } : {}),
      enabled: enabledBox.checked,
    };
  }

  // Refusals beside their fields and in the summary (error-summary.js); fieldOf says which field.
  const ERROR_FIELDS = ['f-id', 'f-url', 'f-events', 'f-bundleIds'];
  const clear = () => clearErrorSummary(form, summary, ERROR_FIELDS);
  const showErrors = (messages, title) => showErrorSummary(form, summary, { title, messages, ids: ERROR_FIELDS, resolve: message => ({ id: fieldOf(message) }) });

  function handleError(error, title) {
    if (error instanceof ApiError && error.status === 401) throw error;
    if (error instanceof ApiError && error.code === 'webhook_url_refused') {
      return showErrors([`${problemTitle(error)}: ${error.message}`], title);
    }
    showErrors(error instanceof ApiError && error.errors.length ? error.errors : [error instanceof ApiError ? `${problemTitle(error)}: ${error.message}` : error.message], title);
  }

  const saveButton = h('button', { type: 'submit', class: 'button button-primary' }, stored ? 'Save changes' : 'Create webhook');
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clear();
    const id = idInput.value.trim();
    const body = read();
    const missing = [];
    if (!id) missing.push('The webhook ID is needed: give it a name such as crm.');
    if (!body.events.length) missing.push("'events' must name at least one event type: tick the events to send.");
    if (body.bundleIds && !body.bundleIds.length) missing.push("'bundleIds' must name at least one app: tick an app, or choose every app.");
    if (missing.length) return showErrors(missing, 'The webhook was not saved');
    saveButton.disabled = true;
    try {
      const result = await api('PUT', path(WEBHOOKS_API, id), { body });
      if (result.secret) holdSecret(result.id, result.secret, 'created');
      toast(stored ? `Saved ${result.id}.` : `Created ${result.id}.`, 'success');
      navigate(['webhooks', 'edit', result.id]);
    } catch (error) {
      handleError(error, 'The webhook was not saved');
    } finally {
      saveButton.disabled = false;
    }
  });
  form.append(h('div', { class: 'actions sticky-actions' }, saveButton,
    h('a', { class: 'button button-quiet', href: href(['webhooks']) }, stored ? 'Back' : 'Cancel')));

  let side = null;
  let historyPanel = null;
  if (stored) {
    const sideError = h('p', { class: 'notice notice-error', role: 'alert', hidden: true, id: 'webhook-action-error' });
    const failed = error => {
      if (error.status === 401) throw error;
      sideError.textContent = `${problemTitle(error)}: ${error.message}`;
      sideError.hidden = false;
    };
    const rotate = h('button', { type: 'button', class: 'button', id: 'rotate-secret', onclick: () => confirmDialog({
      title: `Rotate the secret of ${stored.id}?`,
      body: ['A new secret is made and shown once. The current one stays valid for 24 hours beside it: every delivery carries a signature of each, so the receiver keeps accepting events while you update it.'],
      confirm: 'Rotate secret',
      action: async () => {
        try {
          const result = await api('POST', path(WEBHOOKS_API, stored.id, 'rotate-secret'));
          holdSecret(result.id, result.secret, 'rotated');
          toast(`Rotated the secret of ${result.id}.`, 'success');
          navigate(['webhooks', 'edit', result.id]);
        } catch (error) {
          failed(error);
        }
      },
    }) }, 'Rotate secret');
    const remove = h('button', { type: 'button', class: 'button button-danger', id: 'delete-webhook', onclick: () => confirmDialog({
      title: `Delete the webhook ${stored.id}?`,
      body: [`No more events go to ${stored.url}.`, 'Its deliveries are deleted with it, including those not delivered yet: they are not sent, and cannot be retried or replayed.'],
      confirm: 'Delete webhook',
      danger: true,
      action: async () => {
        try {
          await api('DELETE', path(WEBHOOKS_API, stored.id));
          toast(`Deleted the webhook ${stored.id}.`, 'success');
          navigate(['webhooks']);
        } catch (error) {
          failed(error);
        }
      },
    }) }, 'Delete webhook');
    const history = h('section', { class: 'panel', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'), h('p', { class: 'loading' }, 'Loading…'));
    side = [
      h('section', { class: 'panel', 'aria-labelledby': 'secret-title' },
        h('h2', { id: 'secret-title' }, 'Signing secret'),
        h('p', null, 'Ends in ', h('code', { id: 'secret-last4' }, stored.secretLast4), '. It is shown only when it is made; if it is lost, rotate it.'),
        stored.previousSecretExpiresAt && Date.parse(stored.previousSecretExpiresAt) > Date.now()
          ? h('p', { class: 'muted' }, `The previous secret is still valid until ${dateTime(stored.previousSecretExpiresAt)}.`) : null,
        h('div', { class: 'actions' }, rotate)),
      h('section', { class: 'panel', 'aria-labelledby': 'danger-title' },
        h('h2', { id: 'danger-title' }, 'Delete'),
        h('p', { class: 'muted' }, 'Deleting stops the events and drops the webhook’s deliveries. To pause instead, untick Enabled.'),
        h('div', { class: 'actions' }, remove)),
      sideError,
      history,
    ];
    historyPanel = history;
    loadHistory(stored, history);
  }

  replace(main, h('div', { class: 'page editor' },
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href(['webhooks']) }, 'Webhooks'), ' / ', stored ? stored.id : 'New webhook'),
    h('div', { class: 'page-head' },
      h('h1', null, stored ? `Webhook ${stored.id}` : 'New webhook'),
      stored ? webhookBadge(stored.enabled) : null),
    stored ? h('p', { class: 'muted' }, `Created ${dateTime(stored.createdAt)}, last changed ${dateTime(stored.updatedAt)}.`)
      : h('p', { class: 'lead' }, 'Name the webhook, give your receiver’s address and pick the events. Its signing secret is shown once, right after it is created.'),
    held ? secretPanel(stored, held) : null,
    h('div', { class: 'editor-grid' }, h('div', { class: 'editor-main' }, form), side ? h('div', { class: 'editor-side' }, side) : null),
    stored ? deliveriesPanel(stored, { onChange: () => loadHistory(stored, historyPanel) }) : null));
  if (held) main.querySelector('#secret-once')?.focus();
  else if (!stored) idInput.focus();
}

async function loadHistory(webhook, panel) {
  try {
    const changes = [];
    let cursor;
    for (let page = 0; page < 10; page += 1) {
      const result = await api('GET', path(WEBHOOKS_API, webhook.id, 'changes'), { params: { cursor, limit: 1000 } });
      changes.push(...result.items);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    replace(panel, h('h2', { id: 'history-title' }, 'History'), changes.length
      ? h('ol', { class: 'history' }, [...changes].reverse().map(change => h('li', { class: 'history-item' },
        h('p', { class: 'history-head' },
          h('strong', null, CHANGE_WORDS[change.action] || change.action), ' by ', h('span', { class: 'actor' }, change.actor), ' · ',
          h('time', { datetime: change.at, title: relative(change.at) }, dateTime(change.at))))))
      : h('p', { class: 'empty' }, 'No changes recorded yet.'));
  } catch (error) {
    if (error.status === 401) return;
    replace(panel, h('h2', { id: 'history-title' }, 'History'), h('p', { class: 'notice notice-error' }, `The history could not be read: ${error.message}`));
  }
}
