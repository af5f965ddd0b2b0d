import { api, path } from './api.js';
import { h, replace, field, table } from './dom.js';
import { number, dateTime, day, plural } from './format.js';
import { timeline } from './charts.js';
import { criterionLabel } from './offer-fields.js';

const INTENTS = { 1: 'cancelled by the customer', 2: 'billing error', 3: 'declined a price increase', 4: 'product not available', 5: 'other reason' };
const OFFER_TYPES = { 1: 'introductory offer', 2: 'promotional offer', 3: 'offer code', 4: 'win-back offer', 5: 'App Store retention offer' };
/** Timeline kinds of offer periods: offer codes and the App Store's own retention offers apart from the rest. */
const OFFER_KINDS = { 3: 'code', 5: 'retention' };

/** An offer in words: its type and identifier. */
export function offerName(type, identifier) {
  return `${OFFER_TYPES[type] || `offer of type ${type}`}${identifier ? ` ${identifier}` : ''}`;
}

/** Timeline lanes, one per subscription group: paid periods, trials, offers, refunds, lapses. */
export function lanesFor(history, now) {
  // One lane per subscription group and App Store environment: their histories are apart.
  const environmentOf = item => item.environment || 'Production';
  const keys = [...new Set(history.transactions.map(t => `${environmentOf(t)}\u0000${t.subscriptionGroupIdentifier}`))];
  const severalEnvironments = new Set(keys.map(key => key.split('\u0000')[0])).size > 1;
  return keys.map(key => {
    const [environment, group] = key.split('\u0000');
    const facts = history.groups.find(g => g.subscriptionGroupIdentifier === group && environmentOf(g) === environment);
    const transactions = history.transactions.filter(t => t.subscriptionGroupIdentifier === group && environmentOf(t) === environment)
      .sort((a, b) => a.purchaseDate - b.purchaseDate);
    const segments = [], marks = [];
    let coveredUntil = null;
    for (const t of transactions) {
      const end = Math.min(t.expiresDate ?? now, t.revocationDate ?? Infinity);
      if (coveredUntil !== null && t.purchaseDate > coveredUntil + 86400000) {
        segments.push({ start: coveredUntil, end: t.purchaseDate, kind: 'lapse', title: `Lapsed ${day(coveredUntil)} – ${day(t.purchaseDate)}` });
      }
      const free = t.offerType === 1 && (t.offerDiscountType === 'FREE_TRIAL' || t.price === 0);
      const kind = free ? 'trial' : t.offerType ? OFFER_KINDS[t.offerType] || 'offer' : 'paid';
      const what = free ? 'Free trial' : t.offerType ? offerName(t.offerType, t.offerIdentifier) : 'Paid';
      segments.push({ start: t.purchaseDate, end, kind, title: `${what}: ${day(t.purchaseDate)} – ${day(end)} (${t.productId})` });
      if (t.revocationDate) marks.push({ at: t.revocationDate, kind: 'refund', title: `Refunded or revoked ${dateTime(t.revocationDate)}` });
      coveredUntil = Math.max(coveredUntil ?? 0, end);
    }
    if (coveredUntil !== null && coveredUntil < now && !(facts && facts.isActive)) {
      segments.push({ start: coveredUntil, end: now, kind: 'lapse', title: `Lapsed since ${day(coveredUntil)}` });
    }
    return { label: `Subscription group ${group}${severalEnvironments ? ` (${environment})` : ''}`, segments, marks };
  });
}

function factsList(facts) {
  const yesNo = value => (value ? 'yes' : 'no');
  const rows = [
    ['Status', facts.isActive ? 'active' : facts.isInBillingRetry ? 'in billing retry' : 'lapsed'],
    ['Paid', plural(facts.paidDays, 'day')],
    ['Ended', facts.daysSinceExpiry === null || facts.daysSinceExpiry === undefined ? 'not ended (active)' : `${plural(facts.daysSinceExpiry, 'day')} ago, ${dateTime(facts.latestEndDate)}`],
    ['Why it ended', facts.expirationIntent ? INTENTS[facts.expirationIntent] || String(facts.expirationIntent) : 'unknown'],
    ['Last offer taken', facts.lastOffer ? `${offerName(facts.lastOffer.offerType, facts.lastOffer.offerIdentifier)}, ${dateTime(facts.lastOffer.date)}` : 'never'],
    ['Redemptions by offer', Object.entries(facts.redemptionsByOffer || {}).map(([offer, count]) => `${offer}: ${count}`).join(', ') || 'none'],
    ['Refunded', yesNo(facts.isRefunded)],
    ['Storefront', facts.storefront || 'unknown'],
    ['Apple win-back offers', (facts.eligibleWinBackOfferIds || []).join(', ') || 'none'],
    ['Environment', facts.environment || '—'],
  ];
  return h('dl', { class: 'facts' }, rows.map(([term, value]) => [h('dt', null, term), h('dd', null, value)]));
}

function verdictCard(verdict, href) {
  return h('li', { class: ['verdict', verdict.eligible ? 'verdict-yes' : 'verdict-no'] },
    h('div', { class: 'verdict-head' },
      h('a', { href: href(['offers', 'edit', verdict.offerId]), class: 'verdict-offer' }, verdict.offerId),
      h('span', { class: ['badge', verdict.eligible ? 'badge-live' : 'badge-disabled'] }, verdict.eligible ? 'eligible' : 'not eligible')),
    verdict.eligible ? h('p', { class: 'muted' }, 'This user may get this offer now.')
      : h('ul', { class: 'reasons' }, verdict.reasons.map(reason => h('li', null,
        h('strong', null, `${criterionLabel(reason.criterion)}: `), reason.message))));
}

export async function renderUsers(main, { me, segments, query, navigate, href }) {
  const apps = me.apps || [];
  const userId = segments[0] || '';
  const bundleId = query.get('bundleId') || apps[0] || '';
  const input = h('input', { type: 'search', value: userId, autocomplete: 'off', spellcheck: 'false', required: true, class: 'input-wide' });
  const appSelect = apps.length > 1 ? h('select', null, apps.map(app => h('option', { value: app, selected: app === bundleId }, app))) : null;
  // The verdicts are judged on one environment's history (the API's `?environment=`).
  const environments = me.environments || ['Production'];
  const environment = environments.includes(query.get('environment')) ? query.get('environment') : 'Production';
  const environmentSelect = h('select', null, environments.map(name => h('option', { value: name, selected: name === environment }, name)));
  const results = h('div', { class: 'user-results' });
  replace(main, h('div', { class: 'page' },
    h('h1', null, 'Users'),
    h('p', { class: 'lead' }, 'Look up a user to answer “why didn’t I get the offer?”: their subscription history and, for every offer, whether they may get it now and why not.'),
    h('form', { class: 'toolbar', role: 'search', onsubmit: event => {
      event.preventDefault();
      const id = input.value.trim();
      const params = { ...(apps.length > 1 ? { bundleId: appSelect.value } : {}), ...(environmentSelect.value !== 'Production' ? { environment: environmentSelect.value } : {}) };
      if (id) navigate(['users', id], Object.keys(params).length ? params : undefined);
    } },
    field({ id: 'user-id', label: 'User ID (app account token)', control: input, wide: true }),
    appSelect ? field({ id: 'user-app', label: 'App', control: appSelect }) : null,
    environments.length > 1 ? field({ id: 'user-environment', label: 'Offers judged on', control: environmentSelect }) : null,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, 'Look up'))),
    results));
  if (!userId) {
    input.focus();
    return;
  }
  replace(results, h('p', { class: 'loading', role: 'status' }, 'Looking up…'));
  let history, offers;
  try {
    [history, offers] = await Promise.all([
      api('GET', path('/v1/users', userId, 'history'), { params: { bundleId: apps.length > 1 ? bundleId : undefined } }),
      api('GET', path('/v1/users', userId, 'offers'), { params: { bundleId: apps.length > 1 ? bundleId : undefined, includeDisabled: 'true', environment } }),
    ]);
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    return;
  }
  const now = Date.now();
  const lanes = lanesFor(history, now);
  const start = Math.min(...history.transactions.map(t => t.purchaseDate), now - 30 * 86400000);
  const eligible = offers.offers.filter(o => o.eligible).length;
  const rescinded = history.consentRescinded || [];
  replace(results,
    h('h2', { class: 'user-title' }, 'User ', h('span', { class: 'user-id' }, history.userId)),
    rescinded.length ? h('div', { class: 'notice notice-error consent-notice', role: 'status' },
      h('strong', null, 'Consent rescinded. '),
      rescinded.map(event => `A parent or guardian withdrew consent on ${dateTime(event.at)} (app transaction ${event.appTransactionId}, ${event.environment}). `),
      'No offer is signed for this user until an admin clears it.') : null,
    h('section', { class: 'panel', 'aria-labelledby': 'timeline-title' },
      h('h3', { id: 'timeline-title' }, 'Subscription history'),
      lanes.length ? timeline({ title: `Subscription timeline of ${history.userId}`,
        description: `${plural(history.transactions.length, 'transaction')} in ${plural(lanes.length, 'subscription group')}.`,
        lanes, from: start - 7 * 86400000, to: now })
        : h('p', { class: 'empty' }, 'No verified history is known for this user in this app.'),
      history.groups.map(facts => h('div', { class: 'facts-block' },
        h('h4', null, `Facts for group ${facts.subscriptionGroupIdentifier} (${facts.environment || 'Production'}), as of ${dateTime(facts.asOf)}`), factsList(facts)))),
    h('section', { class: 'panel', 'aria-labelledby': 'verdicts-title' },
      h('h3', { id: 'verdicts-title' }, `Offers: eligible for ${eligible} of ${offers.offers.length} (${offers.environment} history)`),
      offers.offers.length ? h('ul', { class: 'verdicts' }, offers.offers.map(v => verdictCard(v, href))) : h('p', { class: 'empty' }, 'This app has no offers.')),
    history.transactions.length ? h('details', { class: 'panel' },
      h('summary', null, `Transactions (${history.transactions.length})`),
      table({ caption: 'Verified transactions', rows: history.transactions, columns: [
        { label: 'Purchased', value: t => dateTime(t.purchaseDate) },
        { label: 'Expires', value: t => dateTime(t.expiresDate) },
        { label: 'Product', value: t => t.productId },
        { label: 'Offer', value: t => (t.offerType ? `${offerName(t.offerType, t.offerIdentifier)}${t.offerPeriod ? ` (${t.offerPeriod})` : ''}` : '—') },
        { label: 'Plan', value: t => t.billingPlanType || '—' },
        { label: 'Refunded', value: t => (t.revocationDate ? dateTime(t.revocationDate) : '—') },
        { label: 'Storefront', value: t => t.storefront || '—' },
        { label: 'Environment', value: t => t.environment || '—' },
        { label: 'Transaction', value: t => t.transactionId },
      ] })) : null);
}
