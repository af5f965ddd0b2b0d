import { api, path, ApiError } from './api.js';
import { h, replace, toast, setFieldError } from './dom.js';
import { number, percent, dateTime, plural } from './format.js';
import { buildFields, readRule, showErrors, clearErrors, fieldId } from './rule-form.js';
import { OFFER_FIELDS, OFFER_SCHEMA, offerState, criterionLabel } from './offer-fields.js';
import { historyList } from './rule-history.js';
import { horizontalBars } from './charts.js';
import { stateBadge } from './view-offers.js';
import { outcomesPanel } from './view-outcomes.js';
import { problemTitle } from './problems.js';
import { loadCatalog, hasCatalog, hasTeamKey, freshnessNotice } from './catalog-fields.js';
import { attachCatalogPickers, termsList } from './catalog-pickers.js';
import { openCreateAtApple, canChangeAtApple } from './apple-offer-dialog.js';

function blankRule(apps) {
  return { offerId: '', bundleId: apps[0] || '', productIds: [], enabled: true, priority: 0, startsAt: null, endsAt: null, eligibility: {}, limits: {} };
}

export async function renderOfferEditor(main, { me, offerId, query, navigate, href }) {
  const apps = me.apps || [];
  const bundleId = query.get('bundleId') || undefined;
  let stored = null;
  if (offerId) {
    replace(main, h('div', { class: 'page' }, h('h1', null, `Offer ${offerId}`), h('p', { class: 'loading' }, 'Loading…')));
    try {
      stored = await api('GET', path('/v1/admin/offers', offerId), { params: { bundleId } });
    } catch (error) {
      if (error.status === 404) {
        replace(main, h('div', { class: 'page' }, h('h1', null, 'No such offer'),
          h('p', null, 'There is no offer ', h('code', null, offerId), '.'), h('a', { href: href(['offers']) }, 'Back to offers')));
        return;
      }
      throw error;
    }
  }
  const original = stored || blankRule(apps);
  const saved = Boolean(stored);
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const form = h('form', { class: 'offer-form', novalidate: true }, summary, buildFields(original, { apps, saved }, OFFER_SCHEMA));
  // Whose history the simulation reads: App Store purchases (Production) or test purchases (Sandbox).
  // Offered only when the service keeps more than one environment's history.
  const environments = me.environments || ['Production'];
  const environmentNames = { Production: 'Production (App Store purchases)', Sandbox: 'Sandbox (test purchases)' };
  const environmentSelect = h('select', { id: 'sim-environment' }, environments.map(name =>
    h('option', { value: name, selected: name === 'Production' }, environmentNames[name] || name)));
  const environmentField = environments.length > 1 ? h('div', { class: 'field field-inline sim-environment' },
    h('label', { for: 'sim-environment' }, 'History'), environmentSelect) : null;
  const simulation = h('section', { class: 'panel simulation', 'aria-labelledby': 'sim-title' },
    h('h2', { id: 'sim-title' }, 'Simulate'),
    h('p', { class: 'muted' }, 'See how many known users the rule as it stands in the form would make eligible, before saving it.'),
    environmentField);
  const history = h('section', { class: 'panel', 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'));

  // The app's App Store Connect catalog: products and offer IDs picked from it, its freshness
  // above the fields; without one, both are typed by hand.
  const catalogSlot = h('div', { class: 'catalog-slot' });
  form.querySelector('[data-section="basics"] .section-intro')?.after(catalogSlot);
  let pickers = null;
  let catalog = null;
  let catalogApp = original.bundleId;
  // "Create at Apple": for each ticked product that lacks the offer ID, and on demand, for whoever
  // may change offers at Apple (marketing, admin) when the app has a Team key and a catalog.
  const appleActions = h('div', { class: 'apple-actions', id: 'apple-actions', hidden: true });
  function drawAppleActions() {
    if (!pickers || !canChangeAtApple(me) || !hasTeamKey(me, catalogApp)) {
      appleActions.hidden = true;
      return;
    }
    const offerId = form.querySelector('#f-offerId').value.trim();
    const ticked = form.querySelector('#f-productIds').value.split(/[\s,]+/).filter(Boolean);
    const lacking = offerId ? catalog.subscriptions.filter(s => ticked.includes(s.productId) && !s.promotionalOffers.some(o => o.offerCode === offerId)) : [];
    const open = productId => openCreateAtApple({ bundleId: catalogApp, catalog, productId, offerCode: productId ? offerId : '', onCreated: created });
    replace(appleActions,
      lacking.length ? h('p', { class: 'apple-actions-lead' }, `${offerId} is not at Apple for ${lacking.length === 1 ? 'this product' : 'these products'} yet: create it there, then save the rule.`) : null,
      lacking.map(s => h('button', { type: 'button', class: 'button button-primary create-at-apple', dataset: { product: s.productId }, onclick: () => open(s.productId) },
        `Create ${offerId} at Apple for ${s.name}…`)),
      h('button', { type: 'button', class: 'button button-quiet', id: 'new-at-apple', onclick: () => open(lacking[0]?.productId || ticked.find(id => catalog.subscriptions.some(s => s.productId === id)) || catalog.subscriptions[0]?.productId) },
        'New promotional offer at Apple…'));
    appleActions.hidden = !catalog.subscriptions.length;
  }
  async function created(answer) {
    toast(`Created ${answer.offerCode} at Apple for ${answer.productId}${answer.catalog?.outcome === 'failed' ? ': the catalog sync after it failed, sync again' : ''}.`, 'success');
    if (!saved) form.querySelector('#f-offerId').value = answer.offerCode;
    await useCatalog(catalogApp);
    if (terms) replace(terms, termsContent());
  }
  form.addEventListener('input', drawAppleActions);
  form.addEventListener('change', drawAppleActions);
  async function useCatalog(app) {
    pickers?.detach();
    pickers = null;
    catalogApp = app;
    appleActions.hidden = true;
    try {
      catalog = await loadCatalog(me, app);
    } catch (error) {
      if (error.status === 401) throw error;
      catalog = null;
      replace(catalogSlot, h('p', { class: 'notice notice-warn', id: 'catalog-freshness' }, `The App Store Connect catalog could not be read (${error.message}): offer IDs and products are typed by hand.`));
      return;
    }
    replace(catalogSlot, freshnessNotice(catalog, { teamKey: hasTeamKey(me, app) }));
    if (hasCatalog(catalog)) {
      pickers = attachCatalogPickers(form, { catalog, saved, showTerms: !saved });
      const productsField = form.querySelector('#f-productIds').closest('.field');
      (form.querySelector('#offer-terms') || productsField).after(appleActions);
    }
    drawAppleActions();
  }
  await useCatalog(original.bundleId);
  form.querySelector('#f-bundleId')?.addEventListener('change', event => useCatalog(event.target.value));
  const termsContent = () => (hasCatalog(catalog)
    ? [h('h2', { id: 'terms-title' }, 'Terms at Apple'),
      h('p', { class: 'muted' }, 'What the offer gives in each of its products, as the App Store Connect catalog has it; the outcomes below are what it did.'),
      termsList(catalog, stored.offerId, stored.productIds)]
    : [h('h2', { id: 'terms-title' }, 'Terms at Apple'),
      h('p', { class: 'muted' }, 'Unknown: the app has no App Store Connect catalog. With the app’s Team key in the keys file, the catalog says what each offer gives.')]);
  const terms = saved ? h('section', { class: 'panel', id: 'terms', 'aria-labelledby': 'terms-title' }, termsContent()) : null;

  const params = () => ({ bundleId: readRule(form, original, OFFER_SCHEMA).bundleId || bundleId });

  async function save(event) {
    event.preventDefault();
    const rule = readRule(form, original, OFFER_SCHEMA);
    clearErrors(form, summary, OFFER_SCHEMA);
    if (!rule.offerId) return showErrors(form, summary, ["'offerId' is needed: enter the offer ID from App Store Connect"], 'The offer was not saved', OFFER_SCHEMA);
    busy(true);
    try {
      const result = await api('PUT', path('/v1/admin/offers', rule.offerId), { body: rule });
      const warning = (result.warnings || []).some(text => text.startsWith('not checked against App Store Connect')) ? ' Not checked against App Store Connect: the app has no catalog.' : '';
      toast(`${saved ? `Saved ${result.offerId} (version ${result.version}).` : `Created ${result.offerId}.`}${warning}`, 'success');
      navigate(['offers', 'edit', result.offerId], apps.length > 1 ? { bundleId: result.bundleId } : undefined);
    } catch (error) {
      handleError(error, 'The offer was not saved');
    } finally {
      busy(false);
    }
  }

  async function simulate() {
    const rule = readRule(form, original, OFFER_SCHEMA);
    clearErrors(form, summary, OFFER_SCHEMA);
    if (!rule.offerId) return showErrors(form, summary, ["'offerId' is needed to simulate: enter the offer ID from App Store Connect"], 'Nothing was simulated', OFFER_SCHEMA);
    busy(true);
    replace(simulation, h('h2', { id: 'sim-title' }, 'Simulate'), environmentField, h('p', { class: 'loading', role: 'status' }, 'Simulating…'));
    try {
      const result = await api('POST', path('/v1/admin/offers', rule.offerId, 'simulate'),
        { body: rule, params: { bundleId: rule.bundleId, environment: environmentSelect.value } });
      drawSimulation(result);
    } catch (error) {
      replace(simulation, h('h2', { id: 'sim-title' }, 'Simulate'), environmentField, h('p', { class: 'muted' }, 'The simulation did not run.'));
      handleError(error, 'Nothing was simulated');
    } finally {
      busy(false);
    }
  }

  function drawSimulation(result) {
    const funnelItems = [{ label: 'Known users', value: result.known, className: 'series-total' },
      ...result.funnel.map(step => ({ label: `minus ${criterionLabel(step.criterion).toLowerCase()}`, value: step.remaining, note: number(step.remaining), className: 'series-c1' }))];
    replace(simulation,
      h('h2', { id: 'sim-title' }, 'Simulate'),
      environmentField,
      h('p', { class: 'sim-headline', role: 'status' },
        h('strong', { class: 'big-number', id: 'sim-eligible' }, number(result.eligible)),
        ` of ${plural(result.known, 'known user')} would be eligible now (${percent(result.eligible, result.known)}).`),
      h('p', { class: 'muted' }, `${result.draft ? 'The rule as it stands in the form, not saved yet' : 'The saved rule'}, ${result.environment} history, at ${dateTime(Date.now())}.`),
      result.failures.length ? [
        h('h3', null, 'How many fail each criterion'),
        horizontalBars({ title: 'Users failing each criterion', total: result.known, className: 'failures',
          items: result.failures.map(f => ({ label: criterionLabel(f.criterion), value: f.users, note: `${number(f.users)} (${percent(f.users, result.known)})` })) }),
        h('h3', null, 'Funnel, criterion by criterion'),
        horizontalBars({ title: 'Users left after each criterion', total: result.known, items: funnelItems }),
      ] : h('p', null, result.known ? 'No criterion excludes anyone.' : 'No users of this app are known yet: import history first.'),
      result.sample.length ? [
        h('h3', null, `Sample of eligible users (${result.sample.length})`),
        h('ul', { class: 'sample' }, result.sample.map(user => h('li', null, h('a', { href: href(['users', user]) }, user)))),
      ] : null);
  }

  function handleError(error, title) {
    if (error instanceof ApiError && error.code === 'offer_not_at_apple' && Array.isArray(error.problem.products)) {
      const offerId = readRule(form, original, OFFER_SCHEMA).offerId;
      const gaps = error.problem.products.map(gap => (gap.inCatalog
        ? `Product ${gap.productId} has no promotional offer ${offerId} at Apple (it has ${gap.promotionalOffers?.length ? gap.promotionalOffers.join(', ') : 'none'}).`
        : `Product ${gap.productId} is not a subscription of the app at App Store Connect.`));
      const words = problemTitle(error);
      showErrors(form, summary, [...gaps, 'Create the offer in App Store Connect (or pick another), then sync the catalog and save again.'],
        `${title}: ${words[0].toLowerCase()}${words.slice(1)}`, OFFER_SCHEMA);
      setFieldError(form, fieldId(OFFER_FIELDS.find(spec => spec.path === 'productIds')), gaps.join(' '));
      return;
    }
    if (error instanceof ApiError && error.status === 400) {
      showErrors(form, summary, error.errors.length ? error.errors : [error.message], title, OFFER_SCHEMA);
    } else if (error instanceof ApiError && error.status === 401) {
      throw error;
    } else {
      showErrors(form, summary, [error.message], title, OFFER_SCHEMA);
    }
  }

  const saveButton = h('button', { type: 'submit', class: 'button button-primary' }, saved ? 'Save changes' : 'Create offer');
  const simulateButton = h('button', { type: 'button', class: 'button', onclick: simulate }, 'Simulate');
  const toggleButton = saved ? h('button', { type: 'button', class: 'button button-quiet', onclick: async () => {
    busy(true);
    try {
      if (stored.enabled) {
        await api('DELETE', path('/v1/admin/offers', stored.offerId), { params: params() });
        toast(`Disabled ${stored.offerId}.`, 'success');
      } else {
        const rule = { ...stored, enabled: true };
        delete rule.createdAt; delete rule.updatedAt; delete rule.version;
        await api('PUT', path('/v1/admin/offers', stored.offerId), { body: rule });
        toast(`Enabled ${stored.offerId}.`, 'success');
      }
      navigate(['offers', 'edit', stored.offerId], apps.length > 1 ? { bundleId: stored.bundleId } : undefined);
    } catch (error) {
      handleError(error, 'Nothing changed');
    } finally {
      busy(false);
    }
  } }, stored.enabled ? 'Disable offer' : 'Enable offer') : null;
  function busy(on) {
    for (const button of [saveButton, simulateButton, toggleButton]) if (button) button.disabled = on;
  }
  form.addEventListener('submit', save);
  form.append(h('div', { class: 'actions sticky-actions' }, saveButton, simulateButton, toggleButton,
    h('a', { class: 'button button-quiet', href: href(['offers']) }, 'Cancel')));

  const state = stored ? offerState(stored) : null;
  replace(main, h('div', { class: 'page editor' },
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href(['offers']) }, 'Offers'), ' / ', saved ? stored.offerId : 'New offer'),
    h('div', { class: 'page-head' },
      h('h1', null, saved ? `Offer ${stored.offerId}` : 'New offer'),
      state ? stateBadge(state) : null),
    saved ? h('p', { class: 'muted' }, `Version ${stored.version}, last changed ${dateTime(stored.updatedAt)}. `,
      h('a', { href: href(['activity', stored.offerId]) }, 'Activity of this offer')) : h('p', { class: 'lead' }, 'Fill in the offer; every criterion left empty lets everyone through. Simulate to see whom it reaches before you create it.'),
    h('div', { class: 'editor-grid' }, h('div', { class: 'editor-main' }, form), h('div', { class: 'editor-side' }, simulation,
      terms, saved ? outcomesPanel(stored, { environments }) : null, saved ? history : null))));

  if (saved) {
    try {
      const changes = [];
      let cursor;
      for (let page = 0; page < 10; page += 1) {
        const result = await api('GET', path('/v1/admin/offers', stored.offerId, 'changes'), { params: { ...params(), cursor, limit: 1000 } });
        changes.push(...result.items);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      history.append(historyList(changes, { schema: OFFER_SCHEMA }));
    } catch (error) {
      if (error.status === 401) throw error;
      history.append(h('p', { class: 'notice notice-error' }, `The history could not be read: ${error.message}`));
    }
  }
  if (!saved) (form.querySelector('#f-offerId-pick') || form.querySelector(`#${fieldId(OFFER_FIELDS[0])}`))?.focus();
}
