// The App Store Connect catalog of an app, as the service last synced it: how fresh it is (and
// "Sync now" for administrators), each subscription with its promotional offers' terms at Apple,
// and which offer rules name them.
import { api, path } from './api.js';
import { h, replace, table, toast } from './dom.js';
import { confirmDialog } from './confirm-dialog.js';
import { APPLE_OFFERS_API, openCreateAtApple, openReprice, appleRefusal, canChangeAtApple } from './apple-offer-dialog.js';
import { plural } from './format.js';
import { problemTitle } from './problems.js';
import { CATALOG_API, loadCatalog, hasCatalog, hasTeamKey, freshnessNotice, termsText, mainPrices, priceText, everyText } from './catalog-fields.js';

function pricesCell(offer, subscription) {
  const prices = offer.prices || [];
  if (!prices.length) return h('span', { class: 'muted' }, offer.offerMode === 'FREE_TRIAL' ? 'free' : 'no price read');
  const shown = mainPrices(prices);
  return [h('ul', { class: 'plain price-list' }, shown.map(price => h('li', null, priceText(price, subscription)))),
    prices.length > shown.length ? h('span', { class: 'muted' }, `and ${plural(prices.length - shown.length, 'other territory', 'other territories')}`) : null];
}

function subscriptionPanel(subscription, groups, rules, href, actions) {
  const group = groups.find(g => g.id === subscription.groupId);
  const ruleFor = offerCode => rules?.find(rule => rule.offerId === offerCode);
  return h('section', { class: 'panel catalog-product', 'aria-label': subscription.productId },
    h('div', { class: 'page-head' }, h('h2', null, subscription.name, ' ', h('code', null, subscription.productId)),
      actions ? h('button', { type: 'button', class: 'button button-small new-at-apple', dataset: { product: subscription.productId },
        onclick: () => actions.create(subscription) }, 'New promotional offer…') : null),
    h('p', { class: 'muted' }, [
      group ? `Group ${group.referenceName}` : null,
      subscription.subscriptionPeriod ? `renews ${everyText(subscription.subscriptionPeriod)}` : null,
      subscription.state ? `state ${subscription.state.toLowerCase().replace(/_/g, ' ')}` : null,
    ].filter(Boolean).join(' · ')),
    table({
      caption: `Promotional offers of ${subscription.productId}`,
      empty: 'No promotional offers at Apple for this product.',
      rows: subscription.promotionalOffers,
      columns: [
        { label: 'Offer ID', class: 'col-id', value: offer => h('code', null, offer.offerCode) },
        { label: 'Name', value: offer => offer.name || '—' },
        { label: 'Terms', class: 'col-terms', value: offer => termsText(offer) },
        { label: 'Prices', value: offer => pricesCell(offer, subscription) },
        rules ? { label: 'Rule', value: offer => {
          const rule = ruleFor(offer.offerCode);
          return rule ? h('a', { href: href(['offers', 'edit', rule.offerId]) }, `rule ${rule.offerId}`) : h('span', { class: 'muted' }, 'no rule');
        } } : null,
        actions ? { label: 'At Apple', class: 'col-actions', value: offer => h('div', { class: 'row-actions' },
          h('button', { type: 'button', class: 'button button-small reprice', dataset: { offer: offer.offerCode }, 'aria-label': `New prices for ${offer.offerCode}`,
            onclick: () => actions.reprice(subscription, offer) }, 'New prices…'),
          h('button', { type: 'button', class: 'button button-small button-quiet delete-at-apple', dataset: { offer: offer.offerCode }, 'aria-label': `Delete ${offer.offerCode} at Apple`,
            onclick: () => actions.remove(subscription, offer) }, 'Delete…')) } : null,
      ].filter(Boolean),
    }),
    subscription.winBackOffers?.length ? h('p', { class: 'muted' }, `Win-back offers at Apple: ${subscription.winBackOffers.map(offer => offer.offerId).join(', ')}.`) : null);
}

export async function renderCatalog(main, { me, href, query, navigate }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'App Store catalog'), h('p', { class: 'loading' }, 'Loading the catalog…')));
  const apps = me.apps || [];
  const app = apps.includes(query.get('bundleId')) ? query.get('bundleId') : apps[0];
  const canReadRules = me.role === 'admin' || me.role === 'marketing';
  const [catalog, rules] = await Promise.all([
    loadCatalog(me, app),
    canReadRules ? api('GET', '/v1/admin/offers', { params: { bundleId: app } }).then(result => result.offers.filter(rule => rule.bundleId === app)) : null,
  ]);
  const appSelect = apps.length > 1 ? h('select', { id: 'catalog-app', onchange: event => navigate(['catalog'], { bundleId: event.target.value }) },
    apps.map(bundleId => h('option', { value: bundleId, selected: bundleId === app }, bundleId))) : null;
  const result = h('div', { id: 'sync-result', 'aria-live': 'polite' });
  const teamKey = hasTeamKey(me, app);
  const sync = me.role === 'admin' && teamKey ? h('button', { type: 'button', class: 'button button-primary', id: 'sync-now', onclick: async () => {
    sync.disabled = true;
    sync.textContent = 'Syncing…';
    replace(result);
    try {
      const answer = await api('POST', `${CATALOG_API}/sync`, { params: { bundleId: app } });
      const outcome = answer.results.find(item => item.bundleId === app) || answer.results[0];
      if (outcome?.outcome === 'synced') {
        toast(`Synced ${app}: ${plural(outcome.subscriptions ?? 0, 'subscription')}, ${plural(outcome.promotionalOffers ?? 0, 'promotional offer')}.`, 'success');
        navigate(['catalog'], apps.length > 1 ? { bundleId: app } : undefined);
        return;
      }
      // The failure is the catalog's last error: its notice says it, and whether the catalog below is the one read before.
      toast('The sync failed: see why above the catalog.', 'error');
      const now = await loadCatalog(me, app);
      const fresh = freshnessNotice(now, { teamKey });
      notice.replaceWith(fresh);
      notice = fresh;
      notice.setAttribute('role', 'alert');
    } catch (error) {
      if (error.status === 401) throw error;
      replace(result, h('p', { class: 'notice notice-error', role: 'alert' }, `The sync did not run: ${problemTitle(error)}. ${error.message}`));
    } finally {
      sync.disabled = false;
      sync.textContent = 'Sync now';
    }
  } }, 'Sync now') : null;

  // Creating, re-pricing and deleting offers at Apple: for marketing and admin, with a Team key.
  const reload = () => navigate(['catalog'], apps.length > 1 ? { bundleId: app } : undefined);
  const failed = (error, words) => {
    if (error.status === 401) return;
    replace(result, h('div', { class: 'notice notice-error', role: 'alert', id: 'catalog-action-error' },
      h('strong', null, words), ' ', appleRefusal(error, null, error.context).map(item => item.words).join(' ')));
    result.scrollIntoView({ block: 'center' });
  };
  const actions = teamKey && hasCatalog(catalog) && canChangeAtApple(me) ? {
    create: subscription => openCreateAtApple({ bundleId: app, catalog, productId: subscription.productId, onCreated: answer => {
      toast(`Created ${answer.offerCode} at Apple for ${answer.productId}.`, 'success');
      reload();
    } }),
    reprice: (subscription, offer) => openReprice({ bundleId: app, catalog, subscription, offer, onRepriced: answer => {
      toast(`Replaced the prices of ${answer.offerCode} at Apple.`, 'success');
      reload();
    } }),
    remove: (subscription, offer) => confirmDialog({
      title: `Delete ${offer.offerCode} at Apple?`,
      body: [`The promotional offer ${offer.offerCode} (${offer.name || 'no name'}: ${termsText(offer)}) of ${subscription.productId} is deleted in App Store Connect now.`,
        'Customers can no longer redeem it. It is refused while an enabled offer rule names it for this product.'],
      confirm: 'Delete at Apple', danger: true,
      action: async () => {
        replace(result);
        try {
          await api('DELETE', path(APPLE_OFFERS_API, offer.offerCode), { params: { bundleId: app, productId: subscription.productId } });
          toast(`Deleted ${offer.offerCode} of ${subscription.productId} at Apple.`, 'success');
          reload();
        } catch (error) {
          error.context = { productId: subscription.productId, offerCode: offer.offerCode, catalog };
          failed(error, `${offer.offerCode} was not deleted.`);
        }
      },
    }),
  } : null;

  let notice = freshnessNotice(catalog, { teamKey });
  const groups = catalog?.subscriptionGroups || [];
  const subscriptions = hasCatalog(catalog) ? [...catalog.subscriptions].sort((a, b) =>
    a.groupId.localeCompare(b.groupId) || (a.groupLevel ?? 0) - (b.groupLevel ?? 0) || a.productId.localeCompare(b.productId)) : [];
  const offers = subscriptions.reduce((sum, subscription) => sum + subscription.promotionalOffers.length, 0);
  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' }, h('h1', null, 'App Store catalog'), sync),
    h('p', { class: 'lead' }, 'The subscriptions and promotional offers of the app as App Store Connect has them, read with the app’s Team key. Rules are checked against it when saved, and the offer editor picks products and offer IDs from it.'),
    appSelect ? h('div', { class: 'toolbar' }, h('div', { class: 'field field-inline' }, h('label', { for: 'catalog-app' }, 'App'), appSelect)) : null,
    notice,
    teamKey && me.role !== 'admin' ? h('p', { class: 'muted' }, 'The service syncs on its own schedule; an administrator can also sync now.') : null,
    teamKey ? null : h('p', { class: 'muted' }, 'To read it, give the app an appStoreConnect Team key (issuer ID, key ID, .p8) in the keys file and restart or reload the service; see the README’s “App Store Connect catalog”.'),
    result,
    hasCatalog(catalog) ? [
      h('p', { class: 'summary', id: 'catalog-summary' }, `${plural(subscriptions.length, 'subscription')}, ${plural(offers, 'promotional offer')}`),
      subscriptions.length ? subscriptions.map(subscription => subscriptionPanel(subscription, groups, rules, href, actions))
        : h('p', { class: 'empty' }, 'The app has no subscriptions at App Store Connect.'),
    ] : null));
}
