// Creating a promotional offer at Apple, and replacing its prices, from the console: a dialog
// with the offer's terms and its prices picked from Apple's price points (apple-pricing.js),
// sent to the service's App Store Connect routes. Refusals are shown in words beside the field
// they are about (error-summary.js): a code the product already has, Apple's limit of offers,
// a price Apple does not have (with the nearest ones), Apple's own refusals and rate limit.
import { api, path, ApiError } from './api.js';
import { h, field, replace } from './dom.js';
import { problemTitle } from './problems.js';
import { durationText, termsText } from './catalog-fields.js';
import { pricingFields } from './apple-pricing.js';
import { showErrorSummary, clearErrorSummary, clearErrorWhenEdited } from './error-summary.js';

export const APPLE_OFFERS_API = '/v1/admin/appstore/promotional-offers';
const DURATIONS = ['THREE_DAYS', 'ONE_WEEK', 'TWO_WEEKS', 'ONE_MONTH', 'TWO_MONTHS', 'THREE_MONTHS', 'SIX_MONTHS', 'ONE_YEAR'];
const MODES = [
  ['PAY_AS_YOU_GO', 'Pay as you go', 'a discounted price each period, for one or more periods'],
  ['PAY_UP_FRONT', 'Pay up front', 'one discounted price for the whole duration'],
  ['FREE_TRIAL', 'Free', 'nothing to pay for the duration'],
];
const MAX_NAME = 1000; // the service's bound (Apple publishes none for a promotional offer's name)
const OFFER_CODE = /^[!-.0-~]{1,256}$/; // as an offer rule's offer ID: visible ASCII other than /
const LABELS = { productId: 'Product', offerCode: 'Offer ID', name: 'Reference name', duration: 'Duration', offerMode: 'Offer type',
  numberOfPeriods: 'Periods', prices: 'Prices', equalizeFrom: 'Base price', territories: 'Territories' };
const FIELD_OF = { productId: 'ao-product', offerCode: 'ao-offerCode', name: 'ao-name', duration: 'ao-duration', offerMode: 'ao-mode', numberOfPeriods: 'ao-periods' };

/** Whether `me` may create, re-price and delete offers at Apple (the routes' role: marketing; admin may do all). */
export function canChangeAtApple(me) {
  return me.role === 'admin' || me.role === 'marketing';
}

/** The service's message with each quoted member ('numberOfPeriods') named as the form names it. */
function humanize(message) {
  return message.replace(/'([A-Za-z][A-Za-z0-9_.\[\]]*)'/g, (whole, member) => {
    const label = LABELS[member.replace(/\[\d+\].*$/, '').split('.')[0]];
    return label ? `“${label}”` : whole;
  });
}

/**
 * A refusal of the App Store Connect routes as messages `[{ id, words }]`, each naming the field
 * it is about (`pricing.fieldFor`) when there is one. `context`: `{ productId, offerCode, catalog }`.
 */
export function appleRefusal(error, pricing, { productId, offerCode, catalog } = {}) {
  if (!(error instanceof ApiError)) return [{ id: null, words: error.message }];
  const problem = error.problem;
  const title = problemTitle(error);
  switch (error.code) {
    case 'invalid_request':
      return (error.errors.length ? error.errors : [error.message]).map(message => {
        const member = message.match(/'([A-Za-z][A-Za-z0-9_.\[\]]*)'/)?.[1] || '';
        return { id: FIELD_OF[member] || pricing?.fieldFor({ path: member }) || null, words: humanize(message) };
      });
    case 'offer_code_taken': {
      const offer = catalog?.subscriptions?.find(s => s.productId === productId)?.promotionalOffers?.find(o => o.offerCode === offerCode);
      return [{ id: 'ao-offerCode', words: `${title}: ${productId} already has an offer ${offerCode} at Apple${offer ? ` (${termsText(offer)})` : ''}, with other terms. Offer IDs are unique per product: choose another one, or change that offer’s prices from the Catalog page.` }];
    }
    case 'promotional_offer_limit':
      return [{ id: 'ao-product', words: `${title}: ${productId} has ${problem.count ?? 10} promotional offers at Apple, Apple’s maximum. Delete one from the Catalog page first.` }];
    case 'price_not_available': {
      if (Array.isArray(problem.territories)) {
        return [{ id: pricing?.fieldFor({ path: 'territories' }) || null, words: `${title}: Apple equalizes the price to no price in ${problem.territories.join(', ')}.` }];
      }
      const match = error.message.match(/in ([A-Z]{3}) is ([^\s(]+)/);
      const nearest = Array.isArray(problem.nearest) && problem.nearest.length ? ` The nearest prices Apple has there: ${problem.nearest.join(' and ')}.` : '';
      return [{ id: match ? pricing?.fieldFor({ territory: match[1] }) || null : null,
        words: `${title}: Apple has no price ${match ? `${match[2]} in ${match[1]}` : 'like this'} for the subscription.${nearest}` }];
    }
    case 'product_not_at_apple':
      return [{ id: 'ao-product', words: `${title}: ${productId} is not a subscription of the app at App Store Connect${Array.isArray(problem.products) && problem.products.length ? ` (it has ${problem.products.join(', ')})` : ''}.` }];
    case 'promotional_offer_not_found':
      return [{ id: null, words: `${title}: ${productId} has no promotional offer ${offerCode} at Apple any more. Sync the catalog.` }];
    case 'offer_in_use': {
      const rules = problem.offerIds || [];
      return [{ id: null, words: `${title}: the enabled ${rules.length === 1 ? 'rule' : 'rules'} ${rules.join(', ')} ${rules.length === 1 ? 'names' : 'name'} it for ${productId || 'this product'}. Disable ${rules.length === 1 ? 'it' : 'them'} first: StoreKit refuses a signature for a deleted offer.` }];
    }
    default: {
      const apple = Array.isArray(problem.appleErrors) ? problem.appleErrors : [];
      if (error.status === 503 && apple.length) {
        const wait = Number(error.retryAfter) > 0 ? ` in ${error.retryAfter} s` : ' in a minute';
        return [{ id: null, words: `App Store Connect is limiting the Team key’s requests: nothing was changed; try again${wait}.` }];
      }
      if (apple.length) {
        return apple.map(item => ({ id: null, words: `${title}: ${item.title || item.code}${item.detail ? ` — ${item.detail}` : ''} (Apple’s ${item.code}, ${item.status}).` }));
      }
      return [{ id: null, words: `${title}: ${error.message}` }];
    }
  }
}

/** A modal dialog around `form`, closed by Cancel or Escape, removed once closed. */
function dialogWith(id, titleText, children) {
  const dialog = h('dialog', { class: 'confirm-dialog apple-dialog', id, 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, titleText), children);
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/**
 * Opens the form that creates a promotional offer at Apple. `catalog`: the app's (its
 * subscriptions are the products). `productId`, `offerCode`: filled in. `onCreated(answer)`
 * runs after Apple created it (the service has synced the catalog by then).
 */
export function openCreateAtApple({ bundleId, catalog, productId, offerCode = '', onCreated }) {
  const subscriptions = catalog.subscriptions;
  let subscription = subscriptions.find(s => s.productId === productId) || subscriptions[0];
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const productSelect = h('select', null, subscriptions.map(s => h('option', { value: s.productId, selected: s === subscription },
    `${s.name} (${s.productId}): ${s.promotionalOffers.length} of Apple’s 10 promotional offers`)));
  const codeInput = h('input', { type: 'text', value: offerCode, autocomplete: 'off', spellcheck: 'false', maxlength: '100' });
  const nameInput = h('input', { type: 'text', autocomplete: 'off' });
  const nameCount = h('span', { class: 'muted', id: 'ao-name-count' });
  const countName = () => { nameCount.textContent = `${[...nameInput.value].length} characters.`; };
  nameInput.addEventListener('input', countName);
  countName();
  const modeName = 'ao-mode-choice';
  const modeField = h('fieldset', { class: 'field field-multi field-radio', id: 'ao-mode', 'aria-describedby': 'ao-mode-error' },
    h('legend', null, 'Offer type'),
    h('div', { class: 'checks' }, MODES.map(([value, label, help]) => h('label', { class: 'check' },
      h('input', { type: 'radio', name: modeName, value, checked: value === 'PAY_AS_YOU_GO' }),
      h('span', null, h('strong', null, label), `: ${help}`)))),
    h('p', { class: 'field-error', id: 'ao-mode-error', hidden: true }));
  const durationSelect = h('select', null);
  const periodsSelect = h('select', { class: 'input-short' }, Array.from({ length: 12 }, (_, i) => h('option', { value: String(i + 1) }, `${i + 1}`)));
  const periodsField = field({ id: 'ao-periods', label: 'Periods', control: periodsSelect, help: 'How many periods of the duration the discounted price is paid.' });
  const pricingSlot = h('div', { class: 'pricing-slot' });
  const terms = h('p', { class: 'offer-terms apple-terms', id: 'ao-terms', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'button button-primary', id: 'ao-submit' }, 'Create at Apple');
  const cancel = h('button', { type: 'button', class: 'button', onclick: () => dialog.close() }, 'Cancel');
  let pricing = null;

  const mode = () => modeField.querySelector('input:checked').value;
  function fillDurations() {
    const chosen = durationSelect.value || subscription.subscriptionPeriod || 'ONE_MONTH';
    durationSelect.replaceChildren(...DURATIONS.map(value => h('option', { value, selected: value === chosen },
      durationText(value) + (mode() === 'PAY_AS_YOU_GO' && value === subscription.subscriptionPeriod ? ' (the subscription’s period)' : ''))));
  }
  function drawTerms() {
    const offer = { offerMode: mode(), duration: durationSelect.value, numberOfPeriods: mode() === 'PAY_AS_YOU_GO' ? Number(periodsSelect.value) : 1 };
    const price = pricing?.mainPrice();
    replace(terms, h('strong', null, 'Customers get: '), termsText(offer, price || undefined), price ? '' : (mode() === 'FREE_TRIAL' ? '' : ' (choose a price)'),
      `, then ${subscription.name} at its regular price.`);
  }
  function usePricing() {
    pricing = pricingFields({ bundleId, subscription, mode: mode() });
    replace(pricingSlot, pricing.element);
    drawTerms();
  }
  function drawMode() {
    periodsField.hidden = mode() !== 'PAY_AS_YOU_GO';
    fillDurations();
    pricing?.setMode(mode());
    drawTerms();
  }

  const form = h('form', { class: 'apple-offer-form', novalidate: true }, summary,
    h('p', { class: 'muted' }, 'Creates the promotional offer in App Store Connect now, with the app’s Team key; the change is recorded in the audit log and the catalog is synced after.'),
    h('div', { class: 'form-grid' },
      field({ id: 'ao-product', label: 'Product', control: productSelect, wide: true }),
      field({ id: 'ao-offerCode', label: 'Offer ID', control: codeInput,
        help: 'The Promotional Offer Identifier: the offer rule’s offer ID, unique for the product (letters, digits, “_”, “.”, …; no spaces or “/”).' }),
      field({ id: 'ao-name', label: 'Reference name', control: nameInput, help: [`Shown in App Store Connect, not to customers. `, nameCount] })),
    modeField,
    h('div', { class: 'form-grid' },
      field({ id: 'ao-duration', label: 'Duration', control: durationSelect, help: 'How long each period of the offer lasts (pay as you go), or the whole offer.' }),
      periodsField),
    pricingSlot, terms,
    h('div', { class: 'actions' }, submit, cancel));
  clearErrorWhenEdited(form);
  form.addEventListener('change', event => {
    if (event.target === productSelect) {
      subscription = subscriptions.find(s => s.productId === productSelect.value);
      fillDurations();
      usePricing();
    } else if (event.target.name === modeName) {
      drawMode();
    } else {
      drawTerms();
    }
  });

  const ids = () => ['ao-product', 'ao-offerCode', 'ao-name', 'ao-mode', 'ao-duration', 'ao-periods', ...(pricing ? pricing.ids() : [])];
  const show = (messages, title) => showErrorSummary(form, summary, { title, ids: ids(), messages, resolve: message => message });

  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrorSummary(form, summary, ids());
    const offerCodeValue = codeInput.value.trim();
    const name = nameInput.value.trim();
    const missing = [];
    if (!OFFER_CODE.test(offerCodeValue)) missing.push({ id: 'ao-offerCode', words: 'Give the offer ID: up to 256 letters, digits and signs such as “_” or “.”, without spaces or “/”.' });
    if (!name) missing.push({ id: 'ao-name', words: 'Give the offer a reference name.' });
    else if ([...name].length > MAX_NAME) missing.push({ id: 'ao-name', words: `The reference name is at most ${MAX_NAME} characters.` });
    missing.push(...pricing.missing());
    if (missing.length) return show(missing, 'Nothing was sent to Apple');
    const body = { bundleId, productId: subscription.productId, offerCode: offerCodeValue, name, duration: durationSelect.value, offerMode: mode(),
      numberOfPeriods: mode() === 'PAY_AS_YOU_GO' ? Number(periodsSelect.value) : 1, ...pricing.read() };
    submit.disabled = true;
    submit.textContent = 'Creating at Apple…';
    try {
      const answer = await api('POST', APPLE_OFFERS_API, { body });
      dialog.close();
      await onCreated?.(answer);
    } catch (error) {
      if (error.status === 401) { dialog.close(); return; } // signed out: the console shows the sign-in page
      show(appleRefusal(error, pricing, { productId: subscription.productId, offerCode: offerCodeValue, catalog }), 'Apple did not create the offer');
    } finally {
      submit.disabled = false;
      submit.textContent = 'Create at Apple';
    }
  });

  const dialog = dialogWith('apple-offer-dialog', 'Create a promotional offer at Apple', form);
  fillDurations();
  usePricing();
  drawMode();
  (offerCode ? nameInput : codeInput).focus();
  return dialog;
}

/**
 * Opens the form that replaces the prices of `offer` (a catalog promotional offer of
 * `subscription`) at Apple; `onRepriced(answer)` runs after.
 */
export function openReprice({ bundleId, catalog, subscription, offer, onRepriced }) {
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1', hidden: true });
  const pricing = pricingFields({ bundleId, subscription, mode: offer.offerMode });
  const submit = h('button', { type: 'submit', class: 'button button-primary', id: 'ao-submit' }, 'Replace the prices at Apple');
  const form = h('form', { class: 'apple-offer-form', novalidate: true }, summary,
    h('p', null, h('strong', null, offer.name || offer.offerCode), ` — ${termsText(offer)}. `,
      h('span', { class: 'muted' }, 'The offer’s terms stay; its prices in every territory are replaced by these.')),
    pricing.element,
    h('div', { class: 'actions' }, submit, h('button', { type: 'button', class: 'button', onclick: () => dialog.close() }, 'Cancel')));
  clearErrorWhenEdited(form);
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrorSummary(form, summary, pricing.ids());
    const missing = pricing.missing();
    const show = (messages, title) => showErrorSummary(form, summary, { title, ids: pricing.ids(), messages, resolve: message => message });
    if (missing.length) return show(missing, 'Nothing was sent to Apple');
    submit.disabled = true;
    try {
      const answer = await api('PATCH', path(APPLE_OFFERS_API, offer.offerCode, 'prices'),
        { params: { bundleId, productId: subscription.productId }, body: pricing.read() });
      dialog.close();
      await onRepriced?.(answer);
    } catch (error) {
      if (error.status === 401) { dialog.close(); return; } // signed out: the console shows the sign-in page
      show(appleRefusal(error, pricing, { productId: subscription.productId, offerCode: offer.offerCode, catalog }), 'Apple did not change the prices');
    } finally {
      submit.disabled = false;
    }
  });
  const dialog = dialogWith('apple-offer-dialog', `New prices for ${offer.offerCode} (${subscription.productId})`, form);
  return dialog;
}
