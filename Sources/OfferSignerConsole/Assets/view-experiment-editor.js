// One experiment: create or change a draft (placement, arms, metric, horizon, alpha, expected
// users), start it, change a running experiment's weights, stop it with or without a winner,
// its results, the experiment in plain words and its history. The service's refusals appear
// as it words them, beside the fields they concern.
import { api, path, ApiError } from './api.js';
import { h, replace, toast, field } from './dom.js';
import { clearErrorSummary, showErrorSummary } from './error-summary.js';
import { dateTime, number } from './format.js';
import { historyList } from './rule-history.js';
import { offerState } from './offer-fields.js';
import { armsEditor } from './experiment-arms.js';
import { resultsPanel } from './experiment-results.js';
import { EXPERIMENTS_API, EXPERIMENT_SCHEMA, METRICS, statusBadge, shares, armLabel } from './experiment-fields.js';

const TOP_LEVEL = { experimentId: 'Experiment ID', bundleId: 'App', placement: 'Placement', arms: 'Arms', metric: 'Metric',
  horizonDays: 'Horizon (days)', alpha: 'Alpha', expectedUsers: 'Expected users', winner: 'Winner' };
const ARM_FIELDS = { armId: 'Arm ID', offerId: 'Offer', weight: 'Weight' };

/** The element id a service message's first quoted path names (`'arms[1].weight'` → f-arm-1-weight), if any. */
function targetOf(message) {
  const match = message.match(/'([A-Za-z][A-Za-z0-9_.[\]]*)'/);
  if (!match) return null;
  const arm = match[1].match(/^arms\[(\d+)\]\.(armId|offerId|weight)$/);
  if (arm) return `f-arm-${arm[1]}-${arm[2]}`;
  const top = match[1].split(/[.[]/)[0];
  return Object.hasOwn(TOP_LEVEL, top) ? `f-${top}` : null;
}

/** The service's message with its quoted paths named as the form names them. */
function humanize(message) {
  return message.replace(/'([A-Za-z][A-Za-z0-9_.[\]]*)'/g, (whole, name) => {
    const arm = name.match(/^arms\[(\d+)\]\.(armId|offerId|weight)$/);
    if (arm) return `“${ARM_FIELDS[arm[2]]}” of arm ${Number(arm[1]) + 1}`;
    const armOnly = name.match(/^arms\[(\d+)\]$/);
    if (armOnly) return `arm ${Number(armOnly[1]) + 1}`;
    return Object.hasOwn(TOP_LEVEL, name) ? `“${TOP_LEVEL[name]}”` : whole;
  });
}

async function allChanges(experiment) {
  const changes = [];
  let cursor;
  for (let page = 0; page < 10; page += 1) {
    const result = await api('GET', path(EXPERIMENTS_API, experiment.experimentId, 'changes'), { params: { bundleId: experiment.bundleId, cursor, limit: 1000 } });
    changes.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return changes;
}

function describe(experiment, stored) {
  const share = shares(experiment.arms);
  const metric = experiment.metric === 'revenue'
    ? 'the revenue per user (net of refunds, capped at a level fixed at the start, the same for every arm)'
    : 'the share of users still subscribed';
  const control = experiment.arms[0];
  return [
    h('p', null, 'Users who reach ', h('code', null, experiment.placement || 'the placement'), ' are split at random, each keeping their arm:'),
    h('ul', { class: 'plain-order' }, experiment.arms.map((arm, index) => h('li', null,
      h('strong', null, arm.armId || `arm ${index + 1}`), ` — ${share[index]}: `,
      arm.offerId ? ['offered ', h('code', null, arm.offerId), ' when eligible'] : 'no offer',
      index === 0 ? ' (the control)' : null))),
    h('p', null, `Each arm is compared with ${control?.armId || 'the control'} on ${metric} ${experiment.horizonDays || '…'} days after assignment. `,
      `A difference is called established only when its always-valid interval (at 1 − α = ${Number.isFinite(experiment.alpha) ? Number((100 * (1 - experiment.alpha)).toFixed(2)) : '…'}%, shared among the arms) leaves zero; the intervals are tuned for ${number(experiment.expectedUsers ?? 5000)} users.`),
    stored?.status === 'running' ? h('p', null, `Running since ${dateTime(stored.startedAt)}. New weights apply only to users not yet assigned.`) : null,
    stored?.status === 'stopped' ? h('p', null, `Stopped ${dateTime(stored.stoppedAt)}. `,
      stored.winner ? ['Winner: ', h('strong', null, stored.winner), ', its offer put first in the placement.'] : 'No winner was named; the placement was left as it was.') : null,
  ];
}

export async function renderExperimentEditor(main, { me, experimentId, query, navigate, href }) {
  const apps = me.apps || [];
  const bundleId = query.get('bundleId') || undefined;
  const appQuery = experiment => (apps.length > 1 ? { bundleId: experiment.bundleId } : undefined);
  replace(main, h('div', { class: 'page' }, h('h1', null, experimentId ? `Experiment ${experimentId}` : 'New experiment'), h('p', { class: 'loading' }, 'Loading…')));
  const [stored, { offers }, { placements }] = await Promise.all([
    experimentId ? api('GET', path(EXPERIMENTS_API, experimentId), { params: { bundleId } }).catch(error => {
      if (error.status === 404) return null;
      throw error;
    }) : null,
    api('GET', '/v1/admin/offers'),
    api('GET', '/v1/admin/placements'),
  ]);
  if (experimentId && !stored) {
    replace(main, h('div', { class: 'page' }, h('h1', null, 'No such experiment'),
      h('p', null, 'There is no experiment ', h('code', null, experimentId), '.'), h('a', { href: href(['experiments']) }, 'Back to experiments')));
    return;
  }
  const status = stored?.status ?? 'new';
  const editable = status === 'new' || status === 'draft';
  const frozen = status === 'running';
  const app0 = stored?.bundleId || (bundleId && apps.includes(bundleId) ? bundleId : apps[0] || '');
  const offerChoices = app => offers.filter(rule => rule.bundleId === app)
    .map(rule => [rule.offerId, `${rule.offerId} (${offerState(rule)})`])
    .sort((a, b) => a[0].localeCompare(b[0]));
  const placementsOf = app => placements.filter(placement => placement.bundleId === app)
    .sort((a, b) => Number(b.enabled) - Number(a.enabled) || a.placementId.localeCompare(b.placementId));
  const firstPlacement = placementsOf(app0).find(placement => placement.enabled);
  const original = stored || {
    experimentId: '', bundleId: app0, placement: firstPlacement?.placementId || '', metric: 'retained', horizonDays: 30, alpha: 0.05, expectedUsers: null,
    arms: [{ armId: 'control', offerId: null, weight: 1 }, { armId: 'offer', offerId: firstPlacement?.offerIds[0] || null, weight: 1 }],
  };

  const idInput = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', value: original.experimentId, readonly: stored ? true : undefined });
  const appOptions = apps.includes(original.bundleId) || !original.bundleId ? apps : [original.bundleId, ...apps];
  const appSelect = h('select', { disabled: Boolean(stored) || appOptions.length < 2 }, appOptions.map(app => h('option', { value: app, selected: app === original.bundleId }, app)));
  const placementSelect = h('select', { disabled: !editable });
  function drawPlacements(app, chosen) {
    const list = placementsOf(app);
    const known = !chosen || list.some(placement => placement.placementId === chosen);
    replace(placementSelect,
      h('option', { value: '' }, list.length ? 'Choose a placement…' : 'The app has no placements yet'),
      known ? null : h('option', { value: chosen, selected: true }, `${chosen} (no such placement)`),
      list.map(placement => h('option', { value: placement.placementId, selected: placement.placementId === chosen },
        `${placement.placementId}${placement.enabled ? '' : ' (disabled)'}`)));
  }
  drawPlacements(original.bundleId, original.placement);
  const metric = h('div', { class: 'checks' }, METRICS.map(([value, label]) => h('label', { class: 'check' },
    h('input', { type: 'radio', name: 'exp-metric', value, checked: original.metric === value, disabled: !editable }), label)));
  const metricField = h('fieldset', { class: ['field', 'field-multi', 'field-radio', 'field-wide'], id: 'f-metric', dataset: { field: 'f-metric' }, 'aria-describedby': 'f-metric-error' },
    h('legend', null, 'Metric'), metric, h('p', { class: 'field-error', id: 'f-metric-error', hidden: true }));
  const horizon = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', value: String(original.horizonDays ?? ''), class: 'input-short', readonly: !editable || undefined });
  const alpha = h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', value: String(original.alpha ?? 0.05), class: 'input-short', readonly: !editable || undefined });
  const expected = h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', value: original.expectedUsers ?? '', class: 'input-short', placeholder: '5000', readonly: !editable || undefined });
  const arms = armsEditor({ arms: original.arms, offers: offerChoices(original.bundleId), frozen: !editable, onChange: () => drawPlain() });
  if (status === 'stopped') for (const input of arms.element.querySelectorAll('input')) input.readOnly = true;

  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const form = h('form', { class: 'offer-form experiment-form', novalidate: true }, summary,
    h('fieldset', { class: 'section' },
      h('legend', null, 'Experiment'),
      h('p', { class: 'section-intro' }, editable
        ? 'The placement whose users are split, and what counts as better. Nothing is assigned until you start it.'
        : 'Fixed since the experiment started: changing what is measured would break its statistics.'),
      h('div', { class: 'fields' },
        field({ id: 'f-experimentId', label: 'Experiment ID', control: idInput, help: 'A name, e.g. cancel_flow_spring. It cannot be changed after saving.' }),
        field({ id: 'f-bundleId', label: 'App', control: appSelect }),
        field({ id: 'f-placement', label: 'Placement', control: placementSelect, wide: true,
          help: 'One running experiment per placement. While it runs, the placement’s users get their arm’s offer (if eligible) instead of the placement’s first.' }),
        metricField,
        field({ id: 'f-horizonDays', label: 'Horizon (days)', control: horizon, help: '30 to 365: a user is judged this many days after being assigned.' }),
        field({ id: 'f-alpha', label: 'Alpha', control: alpha, help: 'The chance of calling a difference that is not there: 0.05 gives 95% intervals.' }),
        field({ id: 'f-expectedUsers', label: 'Expected users', control: expected,
          help: 'How many users you expect to reach the horizon; the intervals are narrowest there. Empty: 5,000.' }))),
    arms.element);

  const plain = h('div', { id: 'experiment-plain' });
  const described = h('section', { class: 'panel', 'aria-labelledby': 'plain-title' }, h('h2', { id: 'plain-title' }, 'In plain words'), plain);
  const history = h('section', { class: 'panel', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'));

  function read() {
    const number_ = (text, fallback) => (text.trim() === '' ? fallback : (Number.isFinite(Number(text)) ? Number(text) : text.trim()));
    return {
      experimentId: idInput.value.trim(),
      bundleId: appSelect.value,
      placement: placementSelect.value,
      arms: arms.value(),
      metric: form.querySelector('input[name="exp-metric"]:checked')?.value || 'retained',
      horizonDays: number_(horizon.value, null),
      alpha: number_(alpha.value, null),
      expectedUsers: number_(expected.value, null),
    };
  }

  function drawPlain() {
    replace(plain, describe(read(), stored));
  }

  // Refusals beside their fields (an arm's too) and in the summary (error-summary.js): every error slot of the form is cleared.
  const clear = () => clearErrorSummary(form, summary);
  /** The service's messages beside the fields they name, and all of them in the summary. */
  const showErrors = (messages, title) => showErrorSummary(form, summary, { title, messages, resolve: message => ({ id: targetOf(message), words: humanize(message) }) });

  function handleError(error, title) {
    if (error instanceof ApiError && error.status === 401) throw error;
    const messages = error instanceof ApiError && error.errors.length ? error.errors : [error.message];
    showErrors(messages, title);
  }

  async function saveDefinition() {
    const experiment = read();
    if (!experiment.experimentId) {
      showErrors(["'experimentId' is needed: give the experiment a name such as cancel_flow_spring"], 'The experiment was not saved');
      return null;
    }
    return api('PUT', path(EXPERIMENTS_API, experiment.experimentId), { body: experiment });
  }

  const buttons = [];
  const button = (label, onclick, primary) => {
    const made = h('button', { type: onclick ? 'button' : 'submit', class: ['button', primary && 'button-primary'], onclick }, label);
    buttons.push(made);
    return made;
  };
  function busy(on) {
    for (const made of buttons) made.disabled = on;
  }
  async function act(title, work) {
    clear();
    busy(true);
    try {
      await work();
    } catch (error) {
      handleError(error, title);
    } finally {
      busy(false);
    }
  }

  form.addEventListener('submit', event => {
    event.preventDefault();
    act(frozen ? 'The weights were not changed' : 'The experiment was not saved', async () => {
      const result = await saveDefinition();
      if (!result) return;
      toast(stored ? `Saved ${result.experimentId} (version ${result.version}).` : `Created ${result.experimentId} as a draft.`, 'success');
      navigate(['experiments', 'edit', result.experimentId], appQuery(result));
    });
  });
  const start = () => act('The experiment did not start', async () => {
    const saved = await saveDefinition();
    if (!saved) return;
    const result = await api('POST', path(EXPERIMENTS_API, saved.experimentId, 'start'), { params: { bundleId: saved.bundleId } });
    toast(`Started ${result.experimentId}.`, 'success');
    navigate(['experiments', 'edit', result.experimentId], appQuery(result));
  });
  const remove = () => act('The draft was not deleted', async () => {
    await api('DELETE', path(EXPERIMENTS_API, stored.experimentId), { params: { bundleId: stored.bundleId } });
    toast(`Deleted the draft ${stored.experimentId}.`, 'success');
    navigate(['experiments'], appQuery(stored));
  });

  const actions = h('div', { class: 'actions sticky-actions' });
  if (editable) {
    actions.append(button(stored ? 'Save draft' : 'Create draft', null, true), button('Start experiment', start));
    if (stored) actions.append(button('Delete draft', remove));
  } else if (frozen) {
    actions.append(button('Save weights', null, true));
  }
  actions.append(h('a', { class: 'button button-quiet', href: href(['experiments'], apps.length > 1 && bundleId ? { bundleId } : undefined) }, stored && !editable ? 'Back' : 'Cancel'));
  form.append(actions);

  let stopPanel = null;
  if (frozen) {
    const winner = h('select', { id: 'stop-winner' },
      h('option', { value: '' }, 'No winner: leave the placement as it is'),
      stored.arms.filter(arm => arm.offerId).map(arm => h('option', { value: arm.armId }, `${armLabel(arm)}: put ${arm.offerId} first`)));
    const stopError = h('p', { class: 'notice notice-error', role: 'alert', hidden: true, id: 'stop-error' });
    const stopButton = h('button', { type: 'button', class: 'button', onclick: async () => {
      stopButton.disabled = true;
      stopError.hidden = true;
      try {
        const result = await api('POST', path(EXPERIMENTS_API, stored.experimentId, 'stop'), { params: { bundleId: stored.bundleId }, body: winner.value ? { winner: winner.value } : {} });
        toast(result.winner ? `Stopped ${result.experimentId}; ${result.winner}'s offer is first in ${result.placement}.` : `Stopped ${result.experimentId}.`, 'success');
        navigate(['experiments', 'edit', result.experimentId], appQuery(result));
      } catch (error) {
        if (error.status === 401) throw error;
        stopError.textContent = humanize(error.errors.length ? error.errors.join(' ') : error.message);
        stopError.hidden = false;
      } finally {
        stopButton.disabled = false;
      }
    } }, 'Stop experiment');
    stopPanel = h('section', { class: 'panel', 'aria-labelledby': 'stop-title' },
      h('h2', { id: 'stop-title' }, 'Stop'),
      h('p', { class: 'muted' }, 'Stopping ends the assignment: from then on the placement picks its first offer the user is eligible for. Naming a winner puts its offer first in the placement. Users already assigned are still followed to their horizon in the results.'),
      field({ id: 'stop-winner', label: 'Winner', control: winner }),
      stopError,
      h('div', { class: 'actions' }, stopButton));
  }

  replace(main, h('div', { class: 'page editor' },
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href(['experiments']) }, 'Experiments'), ' / ', stored ? stored.experimentId : 'New experiment'),
    h('div', { class: 'page-head' },
      h('h1', null, stored ? `Experiment ${stored.experimentId}` : 'New experiment'),
      stored ? statusBadge(stored.status) : null),
    stored ? h('p', { class: 'muted' }, `Experiment of ${stored.bundleId} on ${stored.placement}, version ${stored.version}, last changed ${dateTime(stored.updatedAt)}.`)
      : h('p', { class: 'lead' }, 'Choose the placement, the arms (the first is the control) and what counts as better. It starts as a draft: nothing is assigned until you start it.'),
    stored && !editable ? resultsPanel(stored, { environments: me.environments || ['Production'] }) : null,
    h('div', { class: 'editor-grid' }, h('div', { class: 'editor-main' }, form), h('div', { class: 'editor-side' }, described, stopPanel, stored ? history : null))));

  form.addEventListener('input', drawPlain);
  form.addEventListener('change', drawPlain);
  appSelect.addEventListener('change', () => {
    drawPlacements(appSelect.value, '');
    arms.reset(offerChoices(appSelect.value));
    drawPlain();
  });
  drawPlain();

  if (stored) {
    try {
      history.append(historyList(await allChanges(stored), { schema: EXPERIMENT_SCHEMA }));
    } catch (error) {
      if (error.status === 401) throw error;
      history.append(h('p', { class: 'notice notice-error' }, `The history could not be read: ${error.message}`));
    }
  } else {
    idInput.focus();
  }
}
