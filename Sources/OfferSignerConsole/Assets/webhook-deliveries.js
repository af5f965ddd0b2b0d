// The deliveries of one webhook, newest first: each event's type, when it occurred, its status
// in words, the tries, the receiver's last answer (or why none came) and the next try; a
// delivery sent again now (Retry), and every kept event of a time range sent again (Replay).
import { api, path } from './api.js';
import { h, replace, toast, table, field } from './dom.js';
import { dateTime, relative, plural } from './format.js';
import { problemTitle } from './problems.js';
import { WEBHOOKS_API, eventLabel, deliveryStatus, lastAnswer } from './webhook-fields.js';

const FILTERS = [['', 'All'], ['pending', 'Not delivered yet'], ['delivered', 'Delivered'], ['dead', 'Gave up']];
const PAGE = 50;

/** `2026-11-30T14:05` (UTC) of a time, for a datetime-local input. */
function inputTime(milliseconds) {
  return new Date(milliseconds).toISOString().slice(0, 16);
}

function nextTry(delivery) {
  if (delivery.status !== 'pending') return h('span', { class: 'muted' }, delivery.deliveredAt ? `delivered ${relative(delivery.deliveredAt)}` : '—');
  if (!delivery.nextAttemptAt) return h('span', { class: 'muted' }, 'soon');
  return h('time', { datetime: delivery.nextAttemptAt, title: dateTime(delivery.nextAttemptAt) },
    Date.parse(delivery.nextAttemptAt) <= Date.now() ? 'now' : relative(delivery.nextAttemptAt));
}

/** A panel that loads and shows `webhook`'s deliveries, with retry and replay; `onChange` after either (they are recorded). */
export function deliveriesPanel(webhook, { onChange } = {}) {
  const filter = h('select', { id: 'delivery-status' }, FILTERS.map(([value, label]) => h('option', { value }, label)));
  const refresh = h('button', { type: 'button', class: 'button', id: 'deliveries-refresh', onclick: () => load() }, 'Refresh');
  const status = h('p', { class: 'notice notice-error', role: 'alert', id: 'deliveries-error', hidden: true });
  const body = h('div', { class: 'deliveries-body', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading…'));
  const more = h('div', { class: 'pager' });
  let items = [];

  const now = Date.now();
  const from = h('input', { type: 'datetime-local', step: '60', value: inputTime(now - 86400000) });
  const to = h('input', { type: 'datetime-local', step: '60', value: inputTime(now + 60000) });
  const replayButton = h('button', { type: 'button', class: 'button', id: 'replay', onclick: () => replay() }, 'Replay');
  const replayForm = h('div', { class: 'replay' },
    h('h3', null, 'Replay a time range'),
    h('p', { class: 'muted' }, 'Sends again every kept event of this webhook that occurred in the range, delivered or not — after a receiver lost data, say. Delivered events are kept 30 days. Receivers skip an event ID they already processed.'),
    h('div', { class: 'toolbar replay-fields' },
      field({ id: 'replay-from', label: 'From (UTC)', control: from }),
      field({ id: 'replay-to', label: 'To (UTC)', control: to }),
      h('div', { class: 'actions' }, replayButton)));

  const panel = h('section', { class: 'panel deliveries', id: 'deliveries', 'aria-labelledby': 'deliveries-title' },
    h('h2', { id: 'deliveries-title' }, 'Deliveries'),
    h('p', { class: 'muted' }, 'Each event is posted until the receiver answers 2xx, with growing waits from 10 seconds to an hour between tries, for 72 hours; then it is given up. A later event of the same user waits while an earlier one is not delivered.'),
    h('div', { class: 'toolbar' }, h('div', { class: 'field field-inline' }, h('label', { for: 'delivery-status' }, 'Show'), filter), refresh),
    status,
    body,
    more,
    replayForm);
  filter.addEventListener('change', () => load());

  function failed(error, what) {
    if (error.status === 401) throw error;
    status.textContent = `${what}: ${problemTitle(error)}. ${error.message}`;
    status.hidden = false;
  }

  async function retry(delivery, button) {
    button.disabled = true;
    status.hidden = true;
    try {
      await api('POST', path(WEBHOOKS_API, webhook.id, 'deliveries', delivery.eventId, 'retry'));
      onChange?.();
      toast(`Sending ${eventLabel(delivery.type).toLowerCase()} ${delivery.eventId.slice(0, 8)}… again now.`, 'success');
      await load();
    } catch (error) {
      failed(error, 'The delivery was not retried');
      button.disabled = false;
    }
  }

  async function replay() {
    status.hidden = true;
    const range = [from.value, to.value].map(value => (value ? `${value.length === 16 ? `${value}:00` : value}Z` : ''));
    if (!range[0] || !range[1]) {
      status.textContent = 'Nothing was replayed: give both ends of the range.';
      status.hidden = false;
      return;
    }
    replayButton.disabled = true;
    try {
      const result = await api('POST', path(WEBHOOKS_API, webhook.id, 'replay'), { body: { from: range[0], to: range[1] } });
      onChange?.();
      toast(result.queued ? `${plural(result.queued, 'event')} queued to be sent again.` : 'No kept event occurred in that range.', result.queued ? 'success' : 'info');
      await load();
    } catch (error) {
      failed(error, 'Nothing was replayed');
    } finally {
      replayButton.disabled = false;
    }
  }

  function draw(nextCursor) {
    replace(body, h('p', { class: 'summary', id: 'deliveries-summary' }, `${plural(items.length, 'delivery', 'deliveries')} shown${nextCursor ? ', more below' : ''}`),
      table({
        caption: `Deliveries of ${webhook.id}`,
        empty: filter.value ? 'No delivery with this status.' : 'No deliveries yet: events are queued as they happen.',
        rows: items,
        columns: [
          { label: 'Event', class: 'col-event', value: d => h('span', { class: 'event-cell' }, h('span', { class: 'event-type' }, eventLabel(d.type)), h('code', { class: 'event-id', title: d.eventId }, d.eventId)) },
          { label: 'Occurred', value: d => h('time', { datetime: d.occurredAt, title: relative(d.occurredAt) }, dateTime(d.occurredAt)) },
          { label: 'Status', value: d => deliveryStatus(d) },
          { label: 'Tries', class: 'num', value: d => String(d.attempts) },
          { label: 'Last answer', class: 'col-answer', value: d => lastAnswer(d) },
          { label: 'Next try', value: d => nextTry(d) },
          { label: 'Action', value: d => {
            const button = h('button', { type: 'button', class: 'button button-small', 'aria-label': `Retry ${eventLabel(d.type)} ${d.eventId}`,
              dataset: { event: d.eventId }, onclick: () => retry(d, button) }, d.status === 'dead' ? 'Retry' : d.status === 'delivered' ? 'Send again' : 'Retry now');
            return button;
          } },
        ],
      }));
    replace(more, nextCursor ? h('button', { type: 'button', class: 'button', id: 'deliveries-more', onclick: () => load(nextCursor) }, 'Show more') : null);
  }

  async function load(cursor) {
    if (!cursor) replace(body, h('p', { class: 'loading' }, 'Loading…'));
    status.hidden = true;
    try {
      const page = await api('GET', path(WEBHOOKS_API, webhook.id, 'deliveries'), { params: { status: filter.value, limit: PAGE, cursor } });
      items = cursor ? [...items, ...page.items] : page.items;
      draw(page.nextCursor);
    } catch (error) {
      if (error.status === 401) throw error;
      replace(body, h('p', { class: 'notice notice-error', role: 'alert' }, `The deliveries could not be read: ${problemTitle(error)}. ${error.message}`));
    }
  }

  load();
  return panel;
}
