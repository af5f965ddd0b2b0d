// Retention rules (what the App Store shows a subscriber who may cancel): every field the
// editor shows, in plain words, and how the console names, lists and describes such a rule.
import { h } from './dom.js';

const SECTIONS = [
  { id: 'basics', title: 'Rule', intro: 'When a subscriber looks at their subscription and may cancel, the App Store asks which message to show. Rules are tried highest priority first; the first that answers wins.' },
  { id: 'applies', title: 'When it applies', intro: 'Leave a list empty to apply to every product or every locale.' },
  { id: 'answer', title: 'What the App Store shows', intro: 'A retention message uploaded and approved through Apple’s Retention Messaging API, alone or with a plan to switch to or a promotional offer.' },
];

export const ANSWERS = [
  ['message', 'Only the message'],
  ['product', 'The message and another plan to switch to'],
  ['offer', 'The message and a promotional offer'],
];

const FIELDS = [
  { path: 'ruleId', section: 'basics', kind: 'text', label: 'Rule ID', required: true, fixedOnceSaved: true,
    help: 'A name for this rule, e.g. save_lapsing_en. It cannot be changed after saving.' },
  { path: 'bundleId', section: 'basics', kind: 'app', label: 'App', help: 'The app (bundle ID) this rule belongs to.' },
  { path: 'priority', section: 'basics', kind: 'int', label: 'Priority',
    help: 'Higher numbers are tried first. E.g. 10 for a rule for one product before a catch-all rule at 0.' },
  { path: 'enabled', section: 'basics', kind: 'bool', label: 'Enabled', explicit: true,
    help: 'A disabled rule is never tried.' },
  { path: 'productIds', section: 'applies', kind: 'list', label: 'Products', unset: 'every product',
    help: 'Subscription product IDs the subscriber is looking at, separated by commas or new lines. Empty: every product.' },
  { path: 'locales', section: 'applies', kind: 'list', label: 'Locales', unset: 'every locale',
    help: 'The subscriber’s locale, e.g. en, en-US, de. “en” matches every English locale. Empty: every locale.' },
  { path: 'messageIdentifier', section: 'answer', kind: 'text', label: 'Message ID', wide: true,
    help: 'The UUID Apple gave the retention message when it was uploaded, e.g. 3f1c5a0e-6d2b-4c8e-9a41-0b7e2d9c6f15.' },
  { path: 'answer', section: 'answer', kind: 'radio', virtual: true, label: 'With the message', options: ANSWERS,
    derive: rule => (rule.offerId ? 'offer' : rule.alternateProductId ? 'product' : 'message'),
    help: 'A plan or an offer, not both.' },
  { path: 'alternateProductId', section: 'answer', kind: 'text', label: 'Plan to suggest', when: ['answer', ['product']], wide: true,
    needed: "'alternateProductId' is needed: enter the product ID of the plan to suggest",
    help: 'The product ID of the plan the message suggests switching to, e.g. a cheaper tier.' },
  { path: 'offerId', section: 'answer', kind: 'pick', label: 'Offer', when: ['answer', ['offer']], placeholder: 'Choose an offer…',
    needed: "'offerId' is needed: choose one of this app's offers",
    help: 'One of this app’s offers. It is signed for the subscriber only when they are eligible for it: its dates, criteria, storefronts and daily limit apply as they do to the app’s own requests.' },
  { path: 'fallbackMessageIdentifier', section: 'answer', kind: 'text', label: 'Message when not eligible', when: ['answer', ['offer']],
    optional: true, wide: true, unset: 'none (the next rule is tried)',
    help: 'The UUID of the message to show instead when the subscriber is not eligible for the offer. Empty: the next rule is tried.' },
];

function shortId(uuid) {
  return h('code', { title: uuid }, uuid && uuid.length > 13 ? `${uuid.slice(0, 8)}…` : uuid || '—');
}

/** The retention rule editor's form. */
export const RETENTION_SCHEMA = { sections: SECTIONS, fields: FIELDS };

/** Retention rules as the console lists and edits them. */
export const RETENTION = {
  id: 'retention',
  title: 'Retention rules',
  noun: 'retention rule',
  api: '/v1/admin/retention-rules',
  schema: RETENTION_SCHEMA,
  needsOffers: true,
  lead: 'What the App Store shows a subscriber who is about to cancel: a retention message, alone or with another plan or a promotional offer. Rules are tried highest priority first. Select a rule to edit it or read its history.',
  newLead: 'Choose the products and locales the rule applies to, and the approved retention message to show. Without any rule that answers, the App Store shows the default message set in App Store Connect.',
  blank: apps => ({ ruleId: '', bundleId: apps[0] || '', enabled: true, priority: 0, messageIdentifier: '' }),
  searchHint: 'Rule, product or offer ID',
  search: rule => [rule.ruleId, rule.offerId, rule.alternateProductId, ...(rule.productIds || []), ...(rule.locales || [])],
  columns: [
    { label: 'Applies to', class: 'col-products', value: rule => appliesTo(rule) },
    { label: 'Answer', value: rule => shows(rule) },
  ],
  /** The rule in plain words, for the editor's side panel. */
  describe: rule => [
    h('p', null, 'Applies to ', appliesTo(rule), '.'),
    h('p', null, shows(rule)),
  ],
};

function appliesTo(rule) {
  const products = rule.productIds?.length ? rule.productIds.join(', ') : 'every product';
  const locales = rule.locales?.length ? rule.locales.join(', ') : 'every locale';
  return h('span', { class: 'applies' }, products, h('span', { class: 'muted' }, ' · '), locales);
}

function shows(rule) {
  const message = ['message ', shortId(rule.messageIdentifier)];
  if (rule.offerId) {
    return h('span', null, 'Shows ', message, ' with offer ', h('strong', null, rule.offerId), ' to eligible subscribers; ',
      rule.fallbackMessageIdentifier ? ['otherwise message ', shortId(rule.fallbackMessageIdentifier)] : 'otherwise the next rule is tried');
  }
  if (rule.alternateProductId) return h('span', null, 'Shows ', message, ' suggesting ', h('strong', null, rule.alternateProductId));
  return h('span', null, 'Shows ', message);
}
