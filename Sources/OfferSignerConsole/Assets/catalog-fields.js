// The App Store Connect catalog in words: an app's catalog read from the service (none when no
// sync ever ran), its freshness, and an offer's terms at Apple (duration, mode, periods, prices).
import { api } from './api.js';
import { h } from './dom.js';
import { dateTime, relative } from './format.js';

export const CATALOG_API = '/v1/admin/catalog';

/** Whether the catalog holds a complete sync (a catalog whose every sync failed holds nothing). */
export function hasCatalog(catalog) {
  return Boolean(catalog && catalog.syncedAt);
}

/** Whether the app has an App Store Connect Team key, so a catalog (`me` from GET /v1/me). */
export function hasTeamKey(me, bundleId) {
  return (me.catalogApps || []).includes(bundleId);
}

/** The app's catalog, or null when it has none: no Team key (not asked), or no sync ever ran (404 catalog_not_found). */
export async function loadCatalog(me, bundleId) {
  if (!hasTeamKey(me, bundleId)) return null;
  try {
    return await api('GET', CATALOG_API, { params: { bundleId } });
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

const DURATIONS = {
  THREE_DAYS: ['3 days', '3 days'], ONE_WEEK: ['1 week', 'week'], TWO_WEEKS: ['2 weeks', '2 weeks'], ONE_MONTH: ['1 month', 'month'],
  TWO_MONTHS: ['2 months', '2 months'], THREE_MONTHS: ['3 months', '3 months'], SIX_MONTHS: ['6 months', '6 months'], ONE_YEAR: ['1 year', 'year'],
};

/** `ONE_MONTH` → `1 month`. */
export function durationText(duration) {
  return DURATIONS[duration]?.[0] || (duration ? duration.toLowerCase().replace(/_/g, ' ') : 'an unknown time');
}

function per(duration) {
  const unit = DURATIONS[duration]?.[1];
  return unit ? (/^\d/.test(unit) ? `every ${unit}` : `a ${unit}`) : `per ${durationText(duration)}`;
}

/** `every month`, `every 3 months` */
export function everyText(duration) {
  const unit = DURATIONS[duration]?.[1];
  return unit ? `every ${unit}` : `every ${durationText(duration)}`;
}

/** `USD 2.99 (USA)` */
export function priceText(price, subscription) {
  if (!price) return '';
  const amount = price.customerPrice === undefined || price.customerPrice === null ? 'free' : `${price.currency || ''} ${price.customerPrice}`.trim();
  const regular = regularPrice(subscription, price.territory);
  const against = regular ? `; regular ${regular.currency || ''} ${regular.customerPrice}`.replace('  ', ' ') : '';
  return amount + (price.territory ? ` (${price.territory}${against})` : '');
}

/** The subscription's regular price in a territory, when the catalog has it (`regularPrices`, read by newer syncs). */
export function regularPrice(subscription, territory) {
  return (subscription?.regularPrices || []).find(price => price.territory === territory && price.customerPrice) || null;
}

/** The territories people look at first, then the others in order. */
const MAIN_TERRITORIES = ['USA', 'GBR', 'DEU', 'FRA', 'JPN', 'CAN', 'AUS'];
export function mainPrices(prices = [], count = 3) {
  const rank = price => { const index = MAIN_TERRITORIES.indexOf(price.territory); return index < 0 ? 99 : index; };
  return [...prices].sort((a, b) => rank(a) - rank(b) || String(a.territory).localeCompare(String(b.territory))).slice(0, count);
}

/**
 * What a promotional offer gives, in words: `Pay as you go: USD 2.99 a month for 3 months`,
 * `Pay up front: USD 9.99 for 6 months`, `Free for 1 month`. `price` is one territory's.
 */
export function termsText(offer, price = mainPrices(offer.prices || [], 1)[0]) {
  const amount = price ? `${price.currency || ''} ${price.customerPrice ?? '?'}`.trim() : 'a price';
  const periods = offer.numberOfPeriods || 1;
  switch (offer.offerMode) {
    case 'FREE_TRIAL':
      return `Free for ${periods > 1 ? `${periods} × ` : ''}${durationText(offer.duration)}`;
    case 'PAY_UP_FRONT':
      return `Pay up front: ${amount} for ${periods > 1 ? `${periods} × ` : ''}${durationText(offer.duration)}`;
    case 'PAY_AS_YOU_GO':
      return `Pay as you go: ${amount} ${per(offer.duration)} for ${periods} ${periods === 1 ? 'period' : 'periods'} (${durationText(offer.duration)} each)`;
    default:
      return `${offer.offerMode || 'Unknown mode'}, ${durationText(offer.duration)} × ${periods}`;
  }
}

/** A product's line: `Pro monthly (com.example.app.pro_monthly), renews every month`. */
export function productText(subscription) {
  const period = subscription.subscriptionPeriod ? `, renews ${everyText(subscription.subscriptionPeriod)}` : '';
  return `${subscription.name} (${subscription.productId})${period}`;
}

/** Every promotional offer of the catalog by its identifier (Apple's offerCode): [{offerCode, name, products: [{subscription, offer}]}]. */
export function offersByCode(catalog) {
  const found = new Map();
  for (const subscription of catalog?.subscriptions || []) {
    for (const offer of subscription.promotionalOffers || []) {
      if (!found.has(offer.offerCode)) found.set(offer.offerCode, { offerCode: offer.offerCode, name: offer.name, products: [] });
      found.get(offer.offerCode).products.push({ subscription, offer });
    }
  }
  return [...found.values()].sort((a, b) => a.offerCode.localeCompare(b.offerCode));
}

/** The catalog's freshness as a notice: fresh, stale, the last sync failed, or no catalog. */
export function freshnessNotice(catalog, { id = 'catalog-freshness', teamKey = true } = {}) {
  if (!catalog) {
    return h('p', { class: 'notice notice-info', id }, teamKey
      ? 'No App Store Connect catalog for this app yet (no sync has run): offer IDs and products are typed by hand and not checked against Apple.'
      : 'No App Store Connect catalog for this app: it has no Team key in the keys file, so offer IDs and products are typed by hand and not checked against Apple.');
  }
  if (!catalog.syncedAt) {
    return h('p', { class: 'notice notice-warn', id },
      'No complete App Store Connect catalog yet: the last sync, ', h('time', { datetime: catalog.attemptedAt, title: dateTime(catalog.attemptedAt) }, relative(catalog.attemptedAt)),
      ', failed: ', h('span', { class: 'catalog-error' }, catalog.lastError || 'no reason given'),
      '. Offer IDs and products are typed by hand and not checked against Apple.');
  }
  const synced = catalog.syncedAt ? h('time', { datetime: catalog.syncedAt, title: dateTime(catalog.syncedAt) }, relative(catalog.syncedAt)) : 'never';
  const failed = catalog.lastError
    ? [' The last sync, ', h('time', { datetime: catalog.attemptedAt, title: dateTime(catalog.attemptedAt) }, relative(catalog.attemptedAt)),
      ', failed and kept this catalog: ', h('span', { class: 'catalog-error' }, catalog.lastError)] : null;
  if (catalog.fresh) {
    return h('p', { class: ['notice', failed ? 'notice-warn' : 'notice-ok'], id },
      'App Store Connect catalog synced ', synced, ': rules are checked against it when saved, and a signature is refused for an offer the product does not have at Apple.', failed);
  }
  return h('p', { class: 'notice notice-warn', id },
    'App Store Connect catalog synced ', synced, catalog.syncedAt ? ' — stale' : '',
    ': rules are still checked against it when saved, but signing no longer relies on it until a sync succeeds.', failed);
}
