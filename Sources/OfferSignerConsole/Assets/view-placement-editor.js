// The editor of one placement: its ID, app and description, the offers it may show in
// priority order (picked from the app's offer rules, reordered), disable/enable, the placement
// in plain words as it stands in the form, and its change history. The service's refusals
// appear as it words them, beside the fields they concern.
import { api, path, ApiError } from './api.js';
import { h, replace, toast, field, setFieldError } from './dom.js';
import { dateTime } from './format.js';
import { showErrors, clearErrors } from './rule-form.js';
import { historyList } from './rule-history.js';
import { enabledBadge } from './view-rules.js';
import { offerOrder } from './offer-order.js';
import { PLACEMENT_SCHEMA, PLACEMENTS_API, offersOf, describePlacement } from './placement-fields.js';

const DESCRIPTION_LIMIT = 500;

async function allChanges(placement) {
  const changes = [];
  let cursor;
  for (let page = 0; page < 10; page += 1) {
    const result = await api('GET', path(PLACEMENTS_API, placement.placementId, 'changes'), { params: { bundleId: placement.bundleId, cursor, limit: 1000 } });
    changes.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return changes;
}

export async function renderPlacementEditor(main, { me, placementId, query, navigate, href }) {
  const apps = me.apps || [];
  const bundleId = query.get('bundleId') || undefined;
  const appQuery = placement => (apps.length > 1 ? { bundleId: placement.bundleId } : undefined);
  replace(main, h('div', { class: 'page' }, h('h1', null, placementId ? `Placement ${placementId}` : 'New placement'), h('p', { class: 'loading' }, 'Loading…')));
  const [stored, { offers }] = await Promise.all([
    placementId ? api('GET', path(PLACEMENTS_API, placementId), { params: { bundleId } }).catch(error => {
      if (error.status === 404) return null;
      throw error;
    }) : null,
    api('GET', '/v1/admin/offers'),
  ]);
  if (placementId && !stored) {
    replace(main, h('div', { class: 'page' }, h('h1', null, 'No such placement'),
      h('p', null, 'There is no placement ', h('code', null, placementId), '.'), h('a', { href: href(['placements']) }, 'Back to placements')));
    return;
  }
  const saved = Boolean(stored);
  const original = stored || { placementId: '', bundleId: bundleId && apps.includes(bundleId) ? bundleId : apps[0] || '', offerIds: [], description: null, enabled: true };
  let known = offersOf(offers, original.bundleId);

  const idInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: original.placementId, readonly: saved || undefined });
  const appOptions = apps.includes(original.bundleId) || !original.bundleId ? apps : [original.bundleId, ...apps];
  const appSelect = h('select', { disabled: saved || appOptions.length < 2 }, appOptions.map(app => h('option', { value: app, selected: app === original.bundleId }, app)));
  const description = h('textarea', { rows: '3', value: original.description || '', class: 'prose' });
  const counter = h('span', { class: 'counter', id: 'f-description-count', 'aria-live': 'polite' });
  const order = offerOrder({
    id: 'f-offerIds', label: 'Offers in priority order', offerIds: original.offerIds, known,
    onChange: () => { setFieldError(form, 'f-offerIds', ''); drawPlain(); }, // an error about the offers is stale once they change
    help: 'The first offer the user is eligible for is signed. Put the offer you would rather give first; an offer the user is not eligible for, or that is not for the product the app asks about, is passed over.',
  });
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const form = h('form', { class: 'offer-form placement-form', novalidate: true }, summary,
    h('fieldset', { class: 'section' },
      h('legend', null, 'Placement'),
      h('p', { class: 'section-intro' }, 'A moment in the app where it may show an offer. The app names it when it asks for an offer, so it cannot be changed after saving.'),
      h('div', { class: 'fields' },
        field({ id: 'f-placementId', label: 'Placement ID', control: idInput,
          help: 'The name the app uses, e.g. cancel_flow, winback_push or paywall: letters, digits and punctuation, no spaces or slashes.' }),
        field({ id: 'f-bundleId', label: 'App', control: appSelect, help: 'The app (bundle ID) whose offers it shows.' }),
        field({ id: 'f-description', label: h('span', null, 'Description ', counter), control: description, wide: true,
          help: 'For the people who configure it: where and when the app shows this moment. Optional.' }))),
    order.element);

  const plain = h('div', { id: 'placement-plain' });
  const described = h('section', { class: 'panel', 'aria-labelledby': 'plain-title' },
    h('h2', { id: 'plain-title' }, 'In plain words'),
    h('p', { class: 'muted' }, saved ? 'The placement as it stands in the form.' : 'The placement as it stands in the form, not saved yet.'),
    plain);
  const history = h('section', { class: 'panel', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'));

  function read() {
    const text = description.value.trim();
    return {
      placementId: idInput.value.trim(),
      bundleId: appSelect.value,
      offerIds: order.value(),
      description: text === '' ? null : text,
      enabled: saved ? stored.enabled : true,
    };
  }

  function drawPlain() {
    replace(plain, describePlacement(read(), known));
  }

  function drawCounter() {
    const count = [...description.value.trim()].length;
    counter.textContent = `${count}/${DESCRIPTION_LIMIT}`;
    counter.classList.toggle('counter-over', count > DESCRIPTION_LIMIT);
  }

  function handleError(error, title) {
    if (error instanceof ApiError && error.status === 401) throw error;
    const messages = error instanceof ApiError && error.status === 400 && error.errors.length ? error.errors : [error.message];
    showErrors(form, summary, messages, title, PLACEMENT_SCHEMA);
    order.mark(messages.flatMap(message => [...message.matchAll(/'offerIds\[(\d+)\]'/g)].map(match => Number(match[1]))));
  }

  async function save(event) {
    event.preventDefault();
    const placement = read();
    clearErrors(form, summary, PLACEMENT_SCHEMA);
    order.mark([]);
    if (!placement.placementId) {
      return showErrors(form, summary, ["'placementId' is needed: give the placement the name the app uses, such as cancel_flow"], 'The placement was not saved', PLACEMENT_SCHEMA);
    }
    busy(true);
    try {
      const result = await api('PUT', path(PLACEMENTS_API, placement.placementId), { body: placement });
      toast(saved ? `Saved ${result.placementId} (version ${result.version}).` : `Created ${result.placementId}.`, 'success');
      navigate(['placements', 'edit', result.placementId], appQuery(result));
    } catch (error) {
      handleError(error, 'The placement was not saved');
    } finally {
      busy(false);
    }
  }

  async function toggle() {
    busy(true);
    try {
      if (stored.enabled) {
        await api('DELETE', path(PLACEMENTS_API, stored.placementId), { params: { bundleId: stored.bundleId } });
        toast(`Disabled ${stored.placementId}.`, 'success');
      } else {
        const { placementId: id, bundleId: app, offerIds, description: text } = stored;
        await api('PUT', path(PLACEMENTS_API, id), { body: { placementId: id, bundleId: app, offerIds, description: text, enabled: true } });
        toast(`Enabled ${stored.placementId}.`, 'success');
      }
      navigate(['placements', 'edit', stored.placementId], appQuery(stored));
    } catch (error) {
      handleError(error, 'Nothing changed');
    } finally {
      busy(false);
    }
  }

  const saveButton = h('button', { type: 'submit', class: 'button button-primary' }, saved ? 'Save changes' : 'Create placement');
  const toggleButton = saved ? h('button', { type: 'button', class: 'button', onclick: toggle }, stored.enabled ? 'Disable placement' : 'Enable placement') : null;
  function busy(on) {
    for (const button of [saveButton, toggleButton]) if (button) button.disabled = on;
  }
  form.addEventListener('submit', save);
  form.addEventListener('input', () => { drawCounter(); drawPlain(); });
  appSelect.addEventListener('change', () => {
    known = offersOf(offers, appSelect.value);
    order.reset(known);
  });
  form.append(h('div', { class: 'actions sticky-actions' }, saveButton, toggleButton,
    h('a', { class: 'button button-quiet', href: href(['placements'], apps.length > 1 && bundleId ? { bundleId } : undefined) }, 'Cancel')));

  replace(main, h('div', { class: 'page editor' },
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href(['placements']) }, 'Placements'), ' / ', saved ? stored.placementId : 'New placement'),
    h('div', { class: 'page-head' },
      h('h1', null, saved ? `Placement ${stored.placementId}` : 'New placement'),
      saved ? enabledBadge(stored.enabled) : null),
    saved ? h('p', { class: 'muted' }, `Placement of ${stored.bundleId}, version ${stored.version}, last changed ${dateTime(stored.updatedAt)}.`)
      : h('p', { class: 'lead' }, 'Name the moment as the app will ask for it, then add the app’s offers it may show, the best first.'),
    h('div', { class: 'editor-grid' }, h('div', { class: 'editor-main' }, form), h('div', { class: 'editor-side' }, described, saved ? history : null))));
  drawCounter();
  drawPlain();

  if (saved) {
    try {
      history.append(historyList(await allChanges(stored), { schema: PLACEMENT_SCHEMA }));
    } catch (error) {
      if (error.status === 401) throw error;
      history.append(h('p', { class: 'notice notice-error' }, `The history could not be read: ${error.message}`));
    }
  } else {
    idInput.focus();
  }
}
