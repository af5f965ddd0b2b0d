// The editor of one managed rule (a retention rule or an introductory-offer rule, described
// by its kind): create, change, disable or enable it, the rule in plain words as it stands
// in the form, and its change history. The service's validation errors appear beside the
// fields they concern, as in the offer editor.
import { api, path, ApiError } from './api.js';
import { h, replace, toast } from './dom.js';
import { dateTime } from './format.js';
import { buildFields, readRule, showErrors, clearErrors, fieldId, wireForm, missingFields } from './rule-form.js';
import { historyList } from './rule-history.js';
import { offerState } from './offer-fields.js';
import { enabledBadge } from './view-rules.js';

/** The app's offers as options of the offer field, live ones first. */
async function offerChoices() {
  const { offers } = await api('GET', '/v1/admin/offers');
  const order = { live: 0, scheduled: 1, ended: 2, disabled: 3 };
  return bundleId => offers
    .filter(rule => rule.bundleId === bundleId)
    .map(rule => ({ rule, state: offerState(rule) }))
    .sort((a, b) => order[a.state] - order[b.state] || a.rule.offerId.localeCompare(b.rule.offerId))
    .map(({ rule, state }) => [rule.offerId, `${rule.offerId} (${state})`]);
}

export async function renderRuleEditor(main, { me, kind, ruleId, query, navigate, href }) {
  const apps = me.apps || [];
  const bundleId = query.get('bundleId') || undefined;
  const schema = kind.schema;
  const appQuery = rule => (apps.length > 1 ? { bundleId: rule.bundleId } : undefined);
  replace(main, h('div', { class: 'page' }, h('h1', null, ruleId ? `Rule ${ruleId}` : `New ${kind.noun}`), h('p', { class: 'loading' }, 'Loading…')));
  let stored = null;
  const [found, offers] = await Promise.all([
    ruleId ? api('GET', path(kind.api, ruleId), { params: { bundleId } }).catch(error => {
      if (error.status === 404) return null;
      throw error;
    }) : null,
    kind.needsOffers ? offerChoices() : null,
  ]);
  if (ruleId && !found) {
    replace(main, h('div', { class: 'page' }, h('h1', null, 'No such rule'),
      h('p', null, `There is no ${kind.noun} `, h('code', null, ruleId), '.'), h('a', { href: href([kind.id]) }, `Back to ${kind.title.toLowerCase()}`)));
    return;
  }
  stored = found;
  const saved = Boolean(stored);
  const original = stored || { ...kind.blank(apps), ...(bundleId && apps.includes(bundleId) ? { bundleId } : {}) };
  const choices = offers ? { offerId: offers } : {};
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const form = h('form', { class: 'offer-form rule-form', novalidate: true }, summary, buildFields(original, { apps, saved, choices }, schema));
  const plain = h('div', { id: 'rule-plain' });
  const described = h('section', { class: 'panel', 'aria-labelledby': 'plain-title' },
    h('h2', { id: 'plain-title' }, 'In plain words'),
    h('p', { class: 'muted' }, saved ? 'The rule as it stands in the form.' : 'The rule as it stands in the form, not saved yet.'),
    plain);
  const history = h('section', { class: 'panel', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'));

  function drawPlain() {
    replace(plain, kind.describe(readRule(form, original, schema)));
  }

  function handleError(error, title) {
    if (error instanceof ApiError && error.status === 401) throw error;
    const messages = error instanceof ApiError && error.status === 400 && error.errors.length ? error.errors : [error.message];
    showErrors(form, summary, messages, title, schema);
  }

  async function save(event) {
    event.preventDefault();
    const rule = readRule(form, original, schema);
    clearErrors(form, summary, schema);
    const missing = [...(rule.ruleId ? [] : ["'ruleId' is needed: give the rule a name such as save_lapsing_en"]), ...missingFields(form, schema)];
    if (missing.length) return showErrors(form, summary, missing, 'The rule was not saved', schema);
    busy(true);
    try {
      const result = await api('PUT', path(kind.api, rule.ruleId), { body: rule });
      toast(saved ? `Saved ${result.ruleId} (version ${result.version}).` : `Created ${result.ruleId}.`, 'success');
      // Saved, but worth knowing: e.g. a retention message Apple has not approved, which the App Store request skips.
      for (const warning of result.warnings || []) toast(warning, 'error');
      navigate([kind.id, 'edit', result.ruleId], appQuery(result));
    } catch (error) {
      handleError(error, 'The rule was not saved');
    } finally {
      busy(false);
    }
  }

  async function toggle() {
    busy(true);
    try {
      if (stored.enabled) {
        await api('DELETE', path(kind.api, stored.ruleId), { params: { bundleId: stored.bundleId } });
        toast(`Disabled ${stored.ruleId}.`, 'success');
      } else {
        const rule = { ...stored, enabled: true };
        delete rule.createdAt; delete rule.updatedAt; delete rule.version;
        await api('PUT', path(kind.api, stored.ruleId), { body: rule });
        toast(`Enabled ${stored.ruleId}.`, 'success');
      }
      navigate([kind.id, 'edit', stored.ruleId], appQuery(stored));
    } catch (error) {
      handleError(error, 'Nothing changed');
    } finally {
      busy(false);
    }
  }

  const saveButton = h('button', { type: 'submit', class: 'button button-primary' }, saved ? 'Save changes' : 'Create rule');
  const toggleButton = saved ? h('button', { type: 'button', class: 'button', onclick: toggle }, stored.enabled ? 'Disable rule' : 'Enable rule') : null;
  function busy(on) {
    for (const button of [saveButton, toggleButton]) if (button) button.disabled = on;
  }
  form.addEventListener('submit', save);
  form.append(h('div', { class: 'actions sticky-actions' }, saveButton, toggleButton,
    h('a', { class: 'button button-quiet', href: href([kind.id], apps.length > 1 && bundleId ? { bundleId } : undefined) }, 'Cancel')));

  replace(main, h('div', { class: 'page editor' },
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href([kind.id]) }, kind.title), ' / ', saved ? stored.ruleId : 'New rule'),
    h('div', { class: 'page-head' },
      h('h1', null, saved ? `Rule ${stored.ruleId}` : `New ${kind.noun}`),
      saved ? enabledBadge(stored.enabled) : null),
    saved ? h('p', { class: 'muted' }, `${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} of ${stored.bundleId}, version ${stored.version}, last changed ${dateTime(stored.updatedAt)}.`)
      : h('p', { class: 'lead' }, kind.newLead),
    h('div', { class: 'editor-grid' }, h('div', { class: 'editor-main' }, form), h('div', { class: 'editor-side' }, described, saved ? history : null))));
  wireForm(form, schema, { choices, onChange: drawPlain });

  if (saved) {
    try {
      const changes = [];
      let cursor;
      for (let page = 0; page < 10; page += 1) {
        const result = await api('GET', path(kind.api, stored.ruleId, 'changes'), { params: { bundleId: stored.bundleId, cursor, limit: 1000 } });
        changes.push(...result.items);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      history.append(historyList(changes, { schema }));
    } catch (error) {
      if (error.status === 401) throw error;
      history.append(h('p', { class: 'notice notice-error' }, `The history could not be read: ${error.message}`));
    }
  } else {
    form.querySelector(`#${fieldId(schema.fields[0])}`)?.focus();
  }
}
