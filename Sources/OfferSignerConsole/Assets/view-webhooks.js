// The webhooks (administrators only): where the service's events go, which types and apps,
// whether each is enabled, and how many of its deliveries wait or were given up.
import { api, path } from './api.js';
import { h, replace, table } from './dom.js';
import { plural, relative, dateTime } from './format.js';
import { WEBHOOKS_API, eventLabel, appsText, webhookBadge } from './webhook-fields.js';

/** How many deliveries of `status` the webhook has, up to 100 ("100+" past that), or null when unknown. */
async function countOf(webhook, status) {
  try {
    const page = await api('GET', path(WEBHOOKS_API, webhook.id, 'deliveries'), { params: { status, limit: 100 } });
    return page.nextCursor ? '100+' : String(page.items.length);
  } catch (error) {
    if (error.status === 401) throw error;
    return null;
  }
}

function backlog(counts) {
  const [pending, dead] = counts;
  if (pending === null || dead === null) return h('span', { class: 'muted' }, 'unknown');
  if (pending === '0' && dead === '0') return h('span', { class: 'muted' }, 'none');
  return h('span', null,
    pending !== '0' ? h('span', { class: 'backlog-pending' }, `${pending} waiting`) : null,
    pending !== '0' && dead !== '0' ? ' · ' : null,
    dead !== '0' ? h('strong', { class: 'backlog-dead' }, `${dead} gave up`) : null);
}

export async function renderWebhooks(main, { href }) {
  replace(main, h('div', { class: 'page' }, h('h1', null, 'Webhooks'), h('p', { class: 'loading' }, 'Loading webhooks…')));
  const { webhooks } = await api('GET', WEBHOOKS_API);
  const counts = await Promise.all(webhooks.map(webhook => Promise.all([countOf(webhook, 'pending'), countOf(webhook, 'dead')])));
  const rows = webhooks.map((webhook, index) => ({ webhook, counts: counts[index] }))
    .sort((a, b) => a.webhook.id.localeCompare(b.webhook.id));
  const enabled = webhooks.filter(webhook => webhook.enabled).length;

  replace(main, h('div', { class: 'page' },
    h('div', { class: 'page-head' },
      h('h1', null, 'Webhooks'),
      h('a', { class: 'button button-primary', href: href(['webhooks', 'new']) }, 'New webhook')),
    h('p', { class: 'lead' }, 'Where the service sends what it learns — offers signed, redemptions, outcomes, consent — as signed HTTP POSTs to your backend, CRM or analytics. Each event is delivered at least once, retried for 72 hours; receivers check the signature with the webhook’s secret and skip an event ID they already have.'),
    h('p', { class: 'summary', role: 'status' }, `${plural(webhooks.length, 'webhook')}, ${enabled} enabled`),
    table({
      caption: 'Webhooks',
      empty: 'No webhooks yet. Create one to send events to your backend.',
      rows,
      onRowClick: ({ webhook }) => href(['webhooks', 'edit', webhook.id]),
      rowLabel: ({ webhook }) => `Open webhook ${webhook.id}`,
      columns: [
        { label: 'Webhook', class: 'col-id', value: ({ webhook }) => webhook.id },
        { label: 'URL', class: 'col-url', value: ({ webhook }) => h('code', null, webhook.url) },
        { label: 'Events', class: 'col-products', value: ({ webhook }) => webhook.events.map(eventLabel).join(', ') },
        { label: 'Apps', value: ({ webhook }) => appsText(webhook) },
        { label: 'State', value: ({ webhook }) => webhookBadge(webhook.enabled) },
        { label: 'Not delivered', value: ({ counts: c }) => backlog(c) },
        { label: 'Updated', value: ({ webhook }) => h('time', { datetime: webhook.updatedAt, title: dateTime(webhook.updatedAt) }, relative(webhook.updatedAt)) },
      ],
    })));
}
