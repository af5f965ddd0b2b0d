// The prices of a promotional offer to create (or re-price) at Apple, picked from Apple's price
// points of the subscription: one price in a base territory that Apple equalizes to every other
// territory, a price in each territory chosen, or, for a free offer, the territories it is
// offered in. read() gives the API's pricing member (`equalizeFrom`, `prices` or `territories`);
// fieldFor() says which control a refusal is about.
import { api } from './api.js';
import { h, field, uid } from './dom.js';
import { plural } from './format.js';
import { problemTitle } from './problems.js';
import { regularPrice, mainPrices } from './catalog-fields.js';

export const PRICE_POINTS_API = '/v1/admin/appstore/price-points';
const TERRITORY = /^[A-Z]{3}$/;
const LIKELY = ['USA', 'GBR', 'DEU', 'FRA', 'ITA', 'ESP', 'NLD', 'JPN', 'KOR', 'CHN', 'CAN', 'AUS', 'BRA', 'MEX', 'IND', 'CHE', 'SWE', 'TUR'];

/**
 * The pricing controls for `subscription` of `bundleId` (from the catalog). `mode` is the offer
 * mode (FREE_TRIAL: territories only). Returns `{ element, setMode, read, missing, fieldFor, ids }`.
 */
export function pricingFields({ bundleId, subscription, mode }) {
  const productId = subscription.productId;
  const regularTerritories = mainPrices(subscription.regularPrices || [], Infinity).map(price => price.territory); // USA, GBR… first
  const base = regularTerritories.includes('USA') ? 'USA' : (mainPrices(subscription.regularPrices || [], 1)[0]?.territory || 'USA');
  const listId = uid('territories');
  const territoryList = h('datalist', { id: listId }, [...new Set([...regularTerritories, ...LIKELY])].map(code => h('option', { value: code })));
  const points = new Map();
  /** Apple's price points of the subscription in `territory`, read once per territory. */
  const pointsOf = territory => {
    if (!points.has(territory)) {
      points.set(territory, api('GET', PRICE_POINTS_API, { params: { bundleId, productId, territory } }).then(answer => answer.pricePoints));
      points.get(territory).catch(() => points.delete(territory));
    }
    return points.get(territory);
  };

  /** A territory box and the select of its prices, filled from Apple's price points whenever the territory changes. */
  function priceControl({ territoryId, priceId, territory, onPick }) {
    const territoryInput = h('input', { type: 'text', value: territory, list: listId, autocomplete: 'off', maxlength: '3', class: 'input-short', spellcheck: 'false' });
    const select = h('select', { class: 'price-select' }, h('option', { value: '' }, 'Choose a territory first'));
    const regularNote = h('span', { class: 'muted price-regular' });
    let loaded = '';
    async function load() {
      const code = territoryInput.value.trim().toUpperCase();
      territoryInput.value = code;
      if (code === loaded) return;
      loaded = code;
      const regular = regularPrice(subscription, code);
      regularNote.textContent = regular ? `Regular price in ${code}: ${regular.currency || ''} ${regular.customerPrice}`.replace('  ', ' ') : '';
      if (!TERRITORY.test(code)) {
        select.replaceChildren(h('option', { value: '' }, 'Type a territory as Apple names it (USA, FRA)'));
        return;
      }
      select.disabled = true;
      select.replaceChildren(h('option', { value: '' }, `Reading Apple’s prices in ${code}…`));
      try {
        const list = await pointsOf(code);
        if (territoryInput.value !== code) return;
        select.replaceChildren(h('option', { value: '' }, list.length ? `Choose a price in ${code}…` : `Apple has no prices for ${code}`),
          ...list.map(point => h('option', { value: point.customerPrice, dataset: { currency: point.currency || '' } },
            `${point.currency || ''} ${point.customerPrice}`.trim() + (point.proceeds ? ` (you receive ${point.proceeds})` : ''))));
      } catch (error) {
        if (error.status === 401) throw error;
        loaded = '';
        select.replaceChildren(h('option', { value: '' }, `Apple’s prices could not be read: ${problemTitle(error)}`));
      } finally {
        select.disabled = false;
      }
      onPick?.();
    }
    territoryInput.addEventListener('change', () => load().catch(() => {}));
    select.addEventListener('change', () => onPick?.());
    return {
      territoryField: field({ id: territoryId, label: 'Territory', control: territoryInput }),
      priceField: field({ id: priceId, label: 'Price', control: select, help: regularNote }),
      territoryInput, select, load,
      territory: () => territoryInput.value.trim().toUpperCase(),
      price: () => select.value,
      currency: () => select.selectedOptions[0]?.dataset.currency || '',
    };
  }

  // One price, equalized by Apple.
  const preview = h('p', { class: 'muted equalized', id: 'ao-equalized', 'aria-live': 'polite' });
  let previewed = '';
  async function drawPreview() {
    const territory = baseControl.territory();
    const customerPrice = baseControl.price();
    const key = `${territory}/${customerPrice}`;
    if (key === previewed) return;
    previewed = key;
    if (!customerPrice) { preview.textContent = ''; return; }
    preview.textContent = 'Asking Apple which prices it equalizes this to…';
    try {
      const answer = await api('GET', `${PRICE_POINTS_API}/equalizations`, { params: { bundleId, productId, territory, customerPrice } });
      if (previewed !== key) return;
      const others = answer.equalizations || [];
      const shown = mainPrices(others, 4).map(point => `${point.currency || ''} ${point.customerPrice} (${point.territory})`.trim());
      preview.textContent = others.length
        ? `Apple equalizes it to ${plural(others.length, 'other territory', 'other territories')}: ${shown.join(', ')}${others.length > shown.length ? ', …' : ''}.`
        : 'Apple equalizes it to no other territory: the offer has this price only.';
    } catch (error) {
      if (error.status === 401) throw error;
      if (previewed === key) preview.textContent = `Apple’s equalized prices could not be read: ${problemTitle(error)}.`;
    }
  }
  const baseControl = priceControl({ territoryId: 'ao-base-territory', priceId: 'ao-base-price', territory: base, onPick: () => drawPreview().catch(() => {}) });
  const equalizeBlock = h('div', { class: 'pricing-block', id: 'ao-equalize' },
    h('div', { class: 'price-row' }, baseControl.territoryField, baseControl.priceField), preview);

  // A price in each territory chosen.
  const rows = [];
  const rowList = h('div', { class: 'price-rows' });
  function addRow(territory = '') {
    const index = rows.length ? Math.max(...rows.map(row => row.index)) + 1 : 0;
    const control = priceControl({ territoryId: `ao-t-${index}`, priceId: `ao-p-${index}`, territory });
    const remove = h('button', { type: 'button', class: 'button button-quiet button-small', 'aria-label': `Remove this territory` }, 'Remove');
    const element = h('div', { class: 'price-row', dataset: { row: String(index) } }, control.territoryField, control.priceField, remove);
    const row = { index, element, ...control };
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      element.remove();
    });
    rows.push(row);
    rowList.append(element);
    control.load().catch(() => {});
    return row;
  }
  const addButton = h('button', { type: 'button', class: 'button button-small', id: 'ao-add-territory', onclick: () => addRow().territoryInput.focus() }, 'Add a territory');
  const eachBlock = h('fieldset', { class: 'pricing-block field-multi', id: 'ao-prices', 'aria-describedby': 'ao-prices-error' },
    h('legend', null, 'A price in each territory'), rowList, h('p', { class: 'field-error', id: 'ao-prices-error', hidden: true }), addButton);

  // The territories of a free offer.
  const territoriesInput = h('input', { type: 'text', value: (regularTerritories.length ? regularTerritories : [base]).join(', '), autocomplete: 'off', spellcheck: 'false' });
  const freeBlock = h('div', { class: 'pricing-block' }, field({ id: 'ao-territories', label: 'Territories where it is offered', control: territoriesInput, wide: true,
    help: 'Apple’s three-letter codes, separated by commas (USA, GBR, FRA). A free offer has no price.' }));

  const choiceName = uid('pricing');
  const choice = value => h('label', { class: 'check' }, h('input', { type: 'radio', name: choiceName, value, checked: value === 'equalize' }),
    value === 'equalize' ? 'One price, equalized by Apple to every other territory' : 'A price in each territory I choose');
  const pricingChoice = h('fieldset', { class: 'field field-multi field-radio', id: 'ao-pricing' },
    h('legend', null, 'Prices'), h('div', { class: 'checks' }, choice('equalize'), choice('each')));
  const element = h('div', { class: 'apple-pricing' }, territoryList, pricingChoice, equalizeBlock, eachBlock, freeBlock);

  let currentMode = mode;
  const pricing = () => pricingChoice.querySelector('input:checked')?.value || 'equalize';
  function draw() {
    const free = currentMode === 'FREE_TRIAL';
    pricingChoice.hidden = free;
    freeBlock.hidden = !free;
    equalizeBlock.hidden = free || pricing() !== 'equalize';
    eachBlock.hidden = free || pricing() !== 'each';
    if (!eachBlock.hidden && !rows.length) for (const territory of (regularTerritories.length ? regularTerritories : [base])) addRow(territory);
  }
  pricingChoice.addEventListener('change', draw);
  baseControl.load().catch(() => {});
  draw();

  const territoriesOf = text => text.split(/[\s,]+/).map(item => item.trim().toUpperCase()).filter(Boolean);
  return {
    element,
    /** Shows the controls of an offer mode. */
    setMode(next) { currentMode = next; draw(); },
    /** The pricing member of the request body. */
    read() {
      if (currentMode === 'FREE_TRIAL') return { territories: territoriesOf(territoriesInput.value) };
      if (pricing() === 'equalize') return { equalizeFrom: { territory: baseControl.territory(), customerPrice: baseControl.price() } };
      return { prices: rows.map(row => ({ territory: row.territory(), customerPrice: row.price() })) };
    },
    /** The price the customer pays in the main territory, for the terms in words. */
    mainPrice() {
      if (currentMode === 'FREE_TRIAL') return null;
      const control = pricing() === 'equalize' ? baseControl : rows[0];
      return control && control.price() ? { territory: control.territory(), currency: control.currency(), customerPrice: control.price() } : null;
    },
    /** What the console itself refuses before asking: [{ id, words }]. */
    missing() {
      if (currentMode === 'FREE_TRIAL') {
        return territoriesOf(territoriesInput.value).length ? [] : [{ id: 'ao-territories', words: 'Name at least one territory the free offer is given in.' }];
      }
      if (pricing() === 'equalize') return baseControl.price() ? [] : [{ id: 'ao-base-price', words: 'Choose the price in the base territory.' }];
      if (!rows.length) return [{ id: 'ao-prices', words: 'Add at least one territory with its price.' }];
      return rows.filter(row => !row.price()).map(row => ({ id: `ao-p-${row.index}`, words: `Choose a price in ${row.territory() || 'this territory'}.` }));
    },
    /** The control a refusal names: a path of the request (`prices[1].customerPrice`, `equalizeFrom`) or a territory. */
    fieldFor({ path, territory }) {
      if (territory) {
        if (currentMode === 'FREE_TRIAL') return 'ao-territories';
        if (pricing() === 'equalize') return baseControl.territory() === territory ? 'ao-base-price' : 'ao-base-territory';
        const row = rows.find(item => item.territory() === territory);
        return row ? `ao-p-${row.index}` : 'ao-prices';
      }
      if (!path) return null;
      const indexed = path.match(/^prices\[(\d+)\]\.(territory|customerPrice)$/);
      if (indexed) {
        const row = rows[Number(indexed[1])];
        return row ? `ao-${indexed[2] === 'territory' ? 't' : 'p'}-${row.index}` : 'ao-prices';
      }
      if (path.startsWith('prices')) return 'ao-prices';
      if (path === 'equalizeFrom.territory') return 'ao-base-territory';
      if (path.startsWith('equalizeFrom')) return 'ao-base-price';
      if (path.startsWith('territories')) return currentMode === 'FREE_TRIAL' ? 'ao-territories' : 'ao-base-territory';
      return null;
    },
    /** Every control that may show an error. */
    ids() {
      return ['ao-base-territory', 'ao-base-price', 'ao-territories', 'ao-prices', ...rows.flatMap(row => [`ao-t-${row.index}`, `ao-p-${row.index}`])];
    },
  };
}
