// The Outcomes panel of an offer: what became of its signatures (the funnel signed →
// redeemed → retained, with churned, refunded and still in the offer), the revenue, and
// the holdout comparison in plain words. Everything comes from
// GET /v1/stats/offers/{offerId}/outcomes.

import { api, path } from './api.js';
import { h, replace } from './dom.js';
import { number, percent, day } from './format.js';
import { horizontalBars } from './charts.js';

const PERIODS = [['30', 'Last 30 days'], ['90', 'Last 90 days'], ['365', 'Last 365 days']];

/** `12.5 points` from a difference of rates (0.125). */
function points(value) {
  const shown = Math.abs(value * 100);
  return `${shown.toFixed(shown < 10 ? 1 : 0).replace(/\.0$/, '')} point${shown === 1 ? '' : 's'}`;
}

/** The holdout comparison as a sentence people read: the lift and its 95 % interval. */
export function liftSentence(result) {
  const { holdout, treated, lift } = result;
  if (!lift) {
    if (!holdout.users) return 'No holdout comparison yet: set a holdout percentage in the editor, and wait until people are held out.';
    return 'No holdout comparison yet: nobody has been offered the offer in this period.';
  }
  const direction = lift.difference >= 0 ? 'more' : 'less';
  const range = `between ${lift.low < 0 ? '−' : ''}${points(lift.low)} and ${lift.high < 0 ? '−' : ''}${points(lift.high)}`;
  const certain = lift.low > 0 ? ' The offer very likely helps.' : lift.high < 0 ? ' The offer very likely hurts.' : ' Not enough people yet to be sure either way.';
  return `Offered people came back ${points(lift.difference)} ${direction} often than people held out (${range}, 95% confidence).${certain}`;
}

/** Money in milli-units of a currency, as `USD 1,234.56`. */
function money(currency, milli) {
  return `${currency} ${(milli / 1000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A panel that loads and shows the outcomes of `offer` ({offerId, bundleId}). */
export function outcomesPanel(offer, { environments = ['Production'] } = {}) {
  const select = h('select', { id: 'outcomes-period' }, PERIODS.map(([value, label]) => h('option', { value, selected: value === '90' }, label)));
  const environment = h('select', { id: 'outcomes-environment' }, environments.map(name => h('option', { value: name, selected: name === 'Production' }, name)));
  const body = h('div', { class: 'outcomes-body', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading…'));
  const panel = h('section', { class: 'panel outcomes', id: 'outcomes', 'aria-labelledby': 'outcomes-title' },
    h('h2', { id: 'outcomes-title' }, 'Outcomes'),
    h('p', { class: 'muted' }, 'What became of the signatures: redemptions seen in the App Store history, whether people kept their subscription, and the holdout comparison.'),
    h('div', { class: 'field field-inline' }, h('label', { for: 'outcomes-period' }, 'Period'), select),
    environments.length > 1 ? h('div', { class: 'field field-inline' }, h('label', { for: 'outcomes-environment' }, 'History'), environment) : null,
    body);

  async function load() {
    replace(body, h('p', { class: 'loading' }, 'Loading…'));
    // Up to the next whole second: the service reads times in whole seconds, and a redemption of this second counts.
    const to = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    const from = new Date(to.getTime() - Number(select.value) * 86400000);
    let result;
    try {
      result = await api('GET', path('/v1/stats/offers', offer.offerId, 'outcomes'), { params: {
        bundleId: offer.bundleId, environment: environment.value,
        from: `${from.toISOString().slice(0, 19)}Z`, to: `${to.toISOString().slice(0, 19)}Z` } });
    } catch (error) {
      if (error.status === 401) throw error;
      replace(body, h('p', { class: 'notice notice-error', role: 'alert' }, `The outcomes could not be read: ${error.message}`));
      return;
    }
    draw(result);
  }

  function draw(result) {
    const revenue = Object.entries(result.revenue).sort(([a], [b]) => a.localeCompare(b));
    replace(body,
      h('p', { class: 'sim-headline', id: 'outcomes-headline' },
        h('strong', { class: 'big-number' }, number(result.redemptions)),
        ` redemption${result.redemptions === 1 ? '' : 's'} from ${number(result.signed)} signature${result.signed === 1 ? '' : 's'}, ${day(result.from)} to ${day(result.to)}.`),
      horizontalBars({ title: 'Signed, redeemed, retained', total: Math.max(result.signed, result.redemptions), className: 'outcomes-funnel', items: [
        { label: 'Signed', value: result.signed, note: number(result.signed), className: 'series-total' },
        { label: 'Redeemed', value: result.redemptions, note: `${number(result.redemptions)} (${percent(result.redemptions, result.signed)} of signed)`, className: 'series-c1' },
        { label: 'Retained', value: result.retained, note: `${number(result.retained)} (${percent(result.retained, result.redemptions)} of redeemed)`, className: 'series-c1' },
      ] }),
      h('dl', { class: 'facts outcomes-facts' },
        h('dt', null, 'Still in the offer'), h('dd', { id: 'outcomes-inOffer' }, number(result.inOffer)),
        h('dt', null, 'Churned'), h('dd', { id: 'outcomes-churned' }, number(result.churned)),
        h('dt', null, 'Refunded'), h('dd', { id: 'outcomes-refunded' }, number(result.refunded)),
        h('dt', null, 'Matched to a signature'), h('dd', { id: 'outcomes-matched' }, number(result.matched)),
        h('dt', null, 'Not signed here'), h('dd', { id: 'outcomes-unmatched' },
          number(result.unmatched), result.unmatched ? ' (see Audit → Redemptions)' : ''),
        h('dt', null, 'Revenue'), h('dd', { id: 'outcomes-revenue' }, revenue.length ? revenue.map(([currency, milli]) => money(currency, milli)).join(', ') : '—'),
        h('dt', null, 'Offered people who came back'), h('dd', null, `${number(result.treated.returned)} of ${number(result.treated.users)} (${percent(result.treated.returned, result.treated.users)})`),
        h('dt', null, 'Held-out people who came back'), h('dd', null, `${number(result.holdout.returned)} of ${number(result.holdout.users)} (${percent(result.holdout.returned, result.holdout.users)})`)),
      h('p', { class: 'lift', id: 'outcomes-lift' }, liftSentence(result)),
      result.holdoutEndedAt
        ? h('p', { class: 'muted', id: 'outcomes-holdout-ended' },
          `The holdout ended on ${result.holdoutEndedAt.replace('T', ' at ').replace(/(\.\d+)?Z$/, ' UTC')}: everyone eligible is offered the offer since then, and people held out before who were offered it later count as offered.`)
        : null);
  }

  select.addEventListener('change', load);
  environment.addEventListener('change', load);
  load();
  return panel;
}
