// Placements (a named moment of an app and the offers it may show, in priority order): the
// fields as the editor, its errors and the history name them, and the placement in plain words.
import { h } from './dom.js';
import { offerState } from './offer-fields.js';

/** The placement's fields, for the history's diff and for placing the service's errors (rule-form.js's schema shape). */
export const PLACEMENT_SCHEMA = {
  sections: [],
  fields: [
    { path: 'placementId', kind: 'text', label: 'Placement ID' },
    { path: 'bundleId', kind: 'app', label: 'App' },
    { path: 'description', kind: 'text', label: 'Description', unset: 'none' },
    { path: 'offerIds', kind: 'order', label: 'Offers', unset: 'none' },
    { path: 'enabled', kind: 'bool', label: 'Enabled' },
  ],
};

export const PLACEMENTS_API = '/v1/admin/placements';

/** What an offer's state means for a placement that lists it. */
export const PASSED_OVER = {
  live: '',
  scheduled: 'passed over until it starts',
  ended: 'passed over: it has ended',
  disabled: 'passed over: it is disabled',
  missing: 'passed over: no such offer',
};

/** The app's offers by ID, each with its state (`offers` as GET /v1/admin/offers lists them). */
export function offersOf(offers, bundleId, now = Date.now()) {
  return new Map(offers.filter(rule => rule.bundleId === bundleId).map(rule => [rule.offerId, { rule, state: offerState(rule, now) }]));
}

/** The state of `offerId` among `known` (offersOf), `missing` when the app has no such offer. */
export function stateOf(known, offerId) {
  return known.get(offerId)?.state || 'missing';
}

/** The placement's offers as a short ordered list, for the placements list. */
export function orderList(placement, known) {
  return h('ol', { class: 'order-inline' }, placement.offerIds.map(offerId => {
    const state = stateOf(known, offerId);
    return h('li', { class: state === 'live' ? undefined : 'order-passed', title: PASSED_OVER[state] || undefined },
      offerId, state === 'live' ? null : h('span', { class: 'muted' }, ` (${state === 'missing' ? 'no such offer' : state})`));
  }));
}

/** The placement in plain words, as it stands in the form. */
export function describePlacement(placement, known) {
  const name = placement.placementId || 'this placement';
  if (!placement.offerIds.length) {
    return [h('p', null, 'No offers yet. Add the offers this moment may show, best first.')];
  }
  const signable = placement.offerIds.filter(offerId => stateOf(known, offerId) === 'live');
  return [
    placement.enabled === false
      ? h('p', { class: 'notice notice-error' }, 'The placement is disabled: the app is told there is no such placement (placement_not_found) and gets no offer.')
      : null,
    h('p', null, 'When the app asks for the offer of ', h('code', null, name),
      ', the service tries these offers in this order and signs the first one the user is eligible for:'),
    h('ol', { class: 'plain-order' }, placement.offerIds.map(offerId => {
      const state = stateOf(known, offerId);
      return h('li', null, h('strong', null, offerId), state === 'live' ? null : h('span', { class: 'muted' }, ` — ${PASSED_OVER[state]}`));
    })),
    h('p', null, signable.length
      ? 'An offer that is not for the product asked about, or that the user is not eligible for, is passed over. When none is left, the app gets no offer and is told why for each one (not_eligible).'
      : 'None of these offers can be signed now, so the app gets no offer until one of them is live.'),
  ];
}
