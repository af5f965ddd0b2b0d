// The offer editor's pickers from the App Store Connect catalog: the offer ID chosen among the
// app's promotional offers at Apple (or typed, for one the catalog does not have yet), the
// products ticked among its subscriptions, each saying whether it has the offer, and the
// offer's terms at Apple. The form's own controls stay the values the rule is read from
// (rule-form.js): the pickers write into them. Without a catalog nothing is added and both
// stay free text.
import { h } from './dom.js';
import { offersByCode, termsText, mainPrices, priceText, productText } from './catalog-fields.js';

const OTHER = '\u0000other';

/** What a promotional offer gives at Apple for each product of the rule that has it: a list, or a note. */
export function termsList(catalog, offerId, productIds) {
  const rows = (catalog?.subscriptions || []).filter(s => productIds.includes(s.productId)).map(subscription => {
    const offer = subscription.promotionalOffers.find(o => o.offerCode === offerId);
    return h('li', { class: offer ? null : 'terms-missing' },
      h('strong', null, subscription.name), ' ', h('code', null, subscription.productId), ': ',
      offer ? [termsText(offer), offer.prices?.length ? h('span', { class: 'muted' }, ` — ${mainPrices(offer.prices).map(price => priceText(price, subscription)).join(', ')}${offer.prices.length > 3 ? ', …' : ''}`) : null]
        : 'no such promotional offer at Apple');
  });
  const unknown = productIds.filter(id => !(catalog?.subscriptions || []).some(s => s.productId === id));
  for (const id of unknown) rows.push(h('li', { class: 'terms-missing' }, h('code', null, id), ': not a subscription of the app at App Store Connect'));
  return rows.length ? h('ul', { class: 'terms-list' }, rows) : h('p', { class: 'muted' }, 'Tick a product to see the offer’s terms at Apple.');
}

/**
 * Adds the pickers to `form` for `catalog` (call only when the app has a complete catalog).
 * `saved`: the offer ID is fixed, so only the products are picked. `showTerms`: the chosen offer's
 * terms below the products. Calls `onChange` after a pick.
 * Returns `detach()`, which removes them and shows the free-text controls again.
 */
export function attachCatalogPickers(form, { catalog, saved, showTerms = true, onChange }) {
  const offerInput = form.querySelector('#f-offerId');
  const productsInput = form.querySelector('#f-productIds');
  const offerField = offerInput.closest('.field');
  const productsField = productsInput.closest('.field');
  const offers = offersByCode(catalog);
  const added = [];
  const restore = [];
  /** Sets a field's help for as long as the pickers are there. */
  const helpOf = (field, text) => {
    const help = field.querySelector('.field-help');
    if (!help) return;
    const before = help.textContent;
    help.textContent = text;
    restore.push(() => { help.textContent = before; });
  };
  const notify = target => target.dispatchEvent(new Event('input', { bubbles: true }));
  const currentProducts = () => productsInput.value.split(/[\s,]+/).map(item => item.trim()).filter(Boolean);

  // Products: a box per subscription of the catalog, and per product of the rule it does not have.
  const known = catalog.subscriptions.map(s => s.productId);
  const boxes = h('div', { class: 'checks catalog-products', id: 'f-productIds-pick', role: 'group', 'aria-labelledby': 'f-productIds-label' });
  function drawProducts() {
    const chosen = new Set(currentProducts());
    const offerId = offerInput.value.trim();
    const extra = [...chosen].filter(id => !known.includes(id));
    boxes.replaceChildren(...[...catalog.subscriptions.map(s => [s.productId, s]), ...extra.map(id => [id, null])].map(([productId, subscription]) => {
      const has = subscription && offerId ? subscription.promotionalOffers.some(o => o.offerCode === offerId) : null;
      return h('label', { class: 'check check-event' },
        h('input', { type: 'checkbox', value: productId, checked: chosen.has(productId) }),
        h('span', null,
          h('span', { class: 'check-label' }, subscription ? productText(subscription) : productId),
          !subscription ? h('span', { class: 'check-help check-bad' }, 'Not a subscription of the app at App Store Connect') :
            has === true ? h('span', { class: 'check-help check-good' }, `Has ${offerId} at Apple`) :
              has === false ? h('span', { class: 'check-help check-bad' }, `No promotional offer ${offerId} at Apple`) : null));
    }));
  }
  boxes.addEventListener('change', () => {
    productsInput.value = [...boxes.querySelectorAll('input:checked')].map(box => box.value).join(', ');
    drawProducts();
    drawTerms();
    notify(productsInput);
  });
  const productsLabel = productsField.querySelector('label');
  productsLabel.id = 'f-productIds-label';
  productsLabel.dataset.for = productsLabel.getAttribute('for');
  productsLabel.removeAttribute('for');
  productsInput.hidden = true;
  productsInput.after(boxes);
  helpOf(productsField, 'Tick the subscriptions the offer may be redeemed on, as the app has them at App Store Connect; each says whether it has the offer.');
  added.push(boxes);

  // The offer ID: a select of the catalog's promotional offers, or typed by hand.
  let select = null;
  if (!saved) {
    const value = offerInput.value.trim();
    const inCatalog = offers.some(o => o.offerCode === value);
    select = h('select', { id: 'f-offerId-pick', 'aria-describedby': offerInput.getAttribute('aria-describedby') },
      h('option', { value: '' }, offers.length ? 'Choose a promotional offer of the catalog…' : 'The catalog has no promotional offers'),
      offers.map(o => h('option', { value: o.offerCode, selected: o.offerCode === value },
        `${o.offerCode}${o.name ? ` — ${o.name}` : ''} (${o.products.length === 1 ? o.products[0].subscription.productId : `${o.products.length} products`})`)),
      h('option', { value: OTHER, selected: Boolean(value) && !inCatalog }, 'Another offer ID, typed by hand'));
    const offerLabel = offerField.querySelector('label');
    offerLabel.setAttribute('for', 'f-offerId-pick');
    offerInput.hidden = !(value && !inCatalog);
    offerInput.setAttribute('aria-label', 'Offer ID, typed by hand');
    offerInput.before(select);
    added.push(select);
    offerField.classList.add('field-wide');
    restore.push(() => offerField.classList.remove('field-wide'));
    helpOf(offerField, 'The promotional offer as the app has it at App Store Connect (its Promotional Offer Identifier), or another ID typed by hand for an offer the catalog does not have yet.');
    select.addEventListener('change', () => {
      const chosen = select.value;
      offerInput.hidden = chosen !== OTHER;
      offerInput.value = chosen === OTHER ? '' : chosen;
      if (chosen === OTHER) offerInput.focus();
      const entry = offers.find(o => o.offerCode === chosen);
      if (entry && !currentProducts().length) {
        productsInput.value = entry.products.map(p => p.subscription.productId).join(', ');
        notify(productsInput);
      }
      drawProducts();
      drawTerms();
      notify(offerInput);
    });
    offerInput.addEventListener('input', () => { drawProducts(); drawTerms(); });
  }

  // The terms of the chosen offer for the ticked products.
  const terms = h('div', { class: 'offer-terms', id: 'offer-terms', 'aria-live': 'polite' });
  function drawTerms() {
    const offerId = offerInput.value.trim();
    terms.replaceChildren(h('p', { class: 'terms-title' }, 'At Apple'),
      offerId ? termsList(catalog, offerId, currentProducts()) : h('p', { class: 'muted' }, 'Choose an offer to see its terms at Apple.'));
  }
  if (showTerms) {
    productsField.after(terms);
    added.push(terms);
  }
  drawProducts();
  drawTerms();
  if (onChange) boxes.addEventListener('change', onChange);

  return {
    detach() {
      for (const element of added) element.remove();
      for (const undo of restore) undo();
      offerInput.hidden = false;
      offerInput.removeAttribute('aria-label');
      productsInput.hidden = false;
      offerField.querySelector('label').setAttribute('for', 'f-offerId');
      productsLabel.setAttribute('for', productsLabel.dataset.for || 'f-productIds');
    },
  };
}
