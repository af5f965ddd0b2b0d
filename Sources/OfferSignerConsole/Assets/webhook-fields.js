// What the Webhooks page says about webhooks: the event types in words, a delivery's status
// and last answer in words, and the one-time secret held in memory between the answer that
// made it and the page that shows it.
import { h } from './dom.js';

export const WEBHOOKS_API = '/v1/admin/webhooks';

/** The event types the service sends (openapi.yaml's WebhookEventType), in words. */
export const EVENT_TYPES = [
  ['offer.signed', 'Offer signed', 'A signature was issued: promotional offer, retention or introductory-offer eligibility.'],
  ['offer.refused', 'Offer refused', 'A request of an identified customer was refused: not eligible, held out, consent rescinded, over quota, experiment control (not failed authentication or malformed requests).'],
  ['redemption.matched', 'Redemption matched', 'A redemption of an offer was found in the history and explained by a signature.'],
  ['redemption.unmatched', 'Redemption unmatched', 'A managed offer was redeemed without a signature of the log explaining it.'],
  ['outcome.changed', 'Outcome changed', 'A redemption became retained, churned or refunded.'],
  ['consent.rescinded', 'Consent rescinded', 'Apple said a customer rescinded consent.'],
  ['consent.cleared', 'Consent cleared', 'An operator lifted a rescinded consent.'],
  ['appAccountToken.linked', 'Subscription linked', 'A subscription was linked to its user at Apple.'],
  ['chain.integrity_failed', 'Audit chain broken', 'An integrity check found the signature log’s chain broken.'],
  ['experiment.started', 'Experiment started', 'An experiment started splitting users between its arms.'],
  ['experiment.stopped', 'Experiment stopped', 'An experiment stopped, with or without a winner.'],
];

/** An event type's name in words (an unknown one as the service names it). */
export function eventLabel(type) {
  return EVENT_TYPES.find(([value]) => value === type)?.[1] || type;
}

const STATUS = {
  waiting: ['Waiting', 'badge-scheduled', 'Queued; not tried yet.'],
  retrying: ['Retrying', 'badge-warn', 'Tried and failed; it will be tried again at the next try.'],
  delivered: ['Delivered', 'badge-live', 'The receiver answered 2xx.'],
  dead: ['Gave up', 'badge-disabled', 'Dead letter: tried for 72 hours without a 2xx. Retry gives it a new 72-hour window.'],
};

/** A delivery's status in words: waiting or retrying (pending), delivered, gave up (dead). */
export function deliveryStatus(delivery) {
  const key = delivery.status === 'pending' ? (delivery.attempts > 0 ? 'retrying' : 'waiting') : delivery.status;
  const [label, kind, help] = STATUS[key] || [delivery.status, 'badge-ended', ''];
  return h('span', { class: ['badge', kind], title: help }, label);
}

/** The last try in words: the receiver's status and the start of its answer, or why none came. */
export function lastAnswer(delivery) {
  if (!delivery.attempts) return h('span', { class: 'muted' }, 'Not tried yet');
  if (delivery.lastStatusCode !== null && delivery.lastStatusCode !== undefined) {
    const ok = delivery.lastStatusCode >= 200 && delivery.lastStatusCode < 300;
    return h('span', { class: 'last-answer' },
      h('strong', { class: ok ? 'answer-ok' : 'answer-bad' }, `HTTP ${delivery.lastStatusCode}`),
      delivery.lastAnswer ? [' ', h('code', { class: 'answer-body' }, delivery.lastAnswer)] : null);
  }
  return h('span', { class: ['last-answer', 'answer-bad'] }, delivery.lastError || 'No answer');
}

/** The webhook's apps in words. */
export function appsText(webhook) {
  return webhook.bundleIds && webhook.bundleIds.length ? webhook.bundleIds.join(', ') : 'Every app';
}

// The secret of the answer that made it (creation, rotation), kept in this module only until
// the page shows it: never in storage, the URL or the log, and gone once taken.
const fresh = new Map();

/** Keeps the secret the service just returned for the webhook `id`, for the next page to show once. */
export function holdSecret(id, secret, how) {
  fresh.set(id, { secret, how });
}

/** The secret held for `id`, if any, forgetting it. */
export function takeSecret(id) {
  const held = fresh.get(id);
  fresh.delete(id);
  return held || null;
}

/** Enabled or disabled, as a badge. */
export function webhookBadge(enabled) {
  return enabled
    ? h('span', { class: ['badge', 'badge-live'], title: 'New events are queued for it' }, 'enabled')
    : h('span', { class: ['badge', 'badge-disabled'], title: 'No new events are queued; those queued are still delivered' }, 'disabled');
}
