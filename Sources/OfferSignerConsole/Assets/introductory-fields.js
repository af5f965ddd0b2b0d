// Introductory-offer rules (who gets a subscription's free trial or introductory price):
// every field the editor shows, in plain words, and how the console names, lists and
// describes such a rule. The criteria for granting it again are the offer rules' own.
import { h } from './dom.js';
import { OFFER_FIELDS } from './offer-fields.js';
import { displayValue, getPath } from './rule-form.js';

const SECTIONS = [
  { id: 'basics', title: 'Rule', intro: 'Without a rule, Apple’s default stays: only people who never had an introductory offer in the subscription group get one. A rule naming the product wins over one naming its group, then the higher priority.' },
  { id: 'applies', title: 'Which subscriptions', intro: 'Products, subscription groups, or both: at least one.' },
  { id: 'again', title: 'Again for people who already had one', intro: 'Widen Apple’s default, e.g. a free trial again for people who lapsed a year ago after paying a month.' },
  { id: 'withhold', title: 'Never for', intro: 'Narrow it: these people never get the introductory offer, whatever else holds.' },
];

/** Where the offer rules' words would mislead here (these two only decide who gets it again). */
const AGAIN_WORDING = {
  'eligibility.excludeRefunded': { label: 'Not again after a refund', help: 'Only people without a purchase in the group refunded by Apple get it again.' },
  'eligibility.storefronts': { label: 'Again only in these storefronts',
    help: 'Only people in these App Store countries get it again, as three-letter codes such as USA, CAN, GBR. Empty for every country.' },
};

/** The offer rules' eligibility criteria, under allowAgain (each person redeems an introductory offer at most once per grant). */
const AGAIN_FIELDS = OFFER_FIELDS
  .filter(spec => spec.section === 'eligibility' && spec.path !== 'eligibility.maxRedemptionsPerUser')
  .map(spec => ({ ...spec, ...AGAIN_WORDING[spec.path], path: spec.path.replace(/^eligibility\./, 'allowAgain.'), section: 'again', when: ['againOn', [true]] }));

const FIELDS = [
  { path: 'ruleId', section: 'basics', kind: 'text', label: 'Rule ID', required: true, fixedOnceSaved: true,
    help: 'A name for this rule, e.g. trial_again_after_a_year. It cannot be changed after saving.' },
  { path: 'bundleId', section: 'basics', kind: 'app', label: 'App', help: 'The app (bundle ID) this rule belongs to.' },
  { path: 'priority', section: 'basics', kind: 'int', label: 'Priority',
    help: 'Among rules naming the same product (or the same group), the highest priority decides.' },
  { path: 'enabled', section: 'basics', kind: 'bool', label: 'Enabled', explicit: true,
    help: 'A disabled rule decides nothing; Apple’s default applies again.' },
  { path: 'productIds', section: 'applies', kind: 'list', label: 'Products', unset: 'none',
    help: 'Subscription product IDs, separated by commas or new lines.' },
  { path: 'subscriptionGroupIds', section: 'applies', kind: 'list', label: 'Subscription groups', unset: 'none',
    help: 'Subscription group IDs from App Store Connect, e.g. 21000001: every product of the group.' },
  { path: 'againOn', section: 'again', kind: 'bool', virtual: true, label: 'Give it again to people who already had one',
    derive: rule => rule.allowAgain != null,
    help: 'When they meet every criterion below (with none set: everyone who already had one).' },
  ...AGAIN_FIELDS,
  { path: 'excludeRefunded', section: 'withhold', kind: 'bool', label: 'Never to people who got a refund',
    help: 'Withhold it from people who had a purchase in the group refunded by Apple.' },
  { path: 'storefronts', section: 'withhold', kind: 'list', upper: true, label: 'Only in these storefronts', unset: 'every storefront',
    help: 'Only these App Store countries get it, as three-letter codes such as USA, CAN, GBR. Empty for every country.' },
];

/** The introductory-offer rule editor's form; without “again”, the rule has no allowAgain. */
export const INTRODUCTORY_SCHEMA = {
  sections: SECTIONS,
  fields: FIELDS,
  finish(rule, virtual) {
    if (virtual.againOn) {
      if (!rule.allowAgain || typeof rule.allowAgain !== 'object') rule.allowAgain = {};
    } else {
      delete rule.allowAgain;
    }
  },
};

/** Introductory-offer rules as the console lists and edits them. */
export const INTRODUCTORY = {
  id: 'introductory',
  title: 'Introductory-offer rules',
  noun: 'introductory-offer rule',
  api: '/v1/admin/introductory-offer-rules',
  schema: INTRODUCTORY_SCHEMA,
  needsOffers: false,
  lead: 'Who gets a subscription’s free trial or introductory price when the app asks (iOS 18.4 and later). Without a rule, Apple’s default: only people who never had one in the group. Select a rule to edit it or read its history.',
  newLead: 'Name the products or subscription groups, then widen Apple’s default (again after a lapse) or narrow it (never after a refund, only some countries).',
  blank: apps => ({ ruleId: '', bundleId: apps[0] || '', enabled: true, priority: 0 }),
  searchHint: 'Rule, product or group ID',
  search: rule => [rule.ruleId, ...(rule.productIds || []), ...(rule.subscriptionGroupIds || [])],
  columns: [
    { label: 'Applies to', class: 'col-products', value: rule => appliesTo(rule) },
    { label: 'Decides', value: rule => decides(rule) },
  ],
  describe: rule => [h('p', null, 'Applies to ', appliesTo(rule), '.'), decides(rule, true)],
};

function appliesTo(rule) {
  const parts = [];
  if (rule.productIds?.length) parts.push(`products ${rule.productIds.join(', ')}`);
  if (rule.subscriptionGroupIds?.length) parts.push(`groups ${rule.subscriptionGroupIds.join(', ')}`);
  return h('span', { class: 'applies' }, parts.length ? parts.join('; ') : 'nothing yet');
}

/** The criteria for giving it again, as “Paid at least 30 days” phrases. */
function againCriteria(rule) {
  return AGAIN_FIELDS.flatMap(spec => {
    const value = getPath(rule, spec.path);
    if (value === undefined || value === null || (Array.isArray(value) && !value.length)) return [];
    return [spec.kind === 'bool' ? (value ? spec.label : `not: ${spec.label.toLowerCase()}`) : `${spec.label}: ${displayValue(spec, value)}`];
  });
}

function decides(rule, long = false) {
  const lines = [];
  if (rule.allowAgain) {
    const criteria = againCriteria(rule);
    lines.push(criteria.length ? `Again for people who already had one: ${criteria.join('; ')}` : 'Again for everyone who already had one');
  } else {
    lines.push(long ? 'Apple’s default: only people who never had an introductory offer in the group' : 'Apple’s default');
  }
  const never = [];
  if (rule.excludeRefunded) never.push('refunded');
  if (rule.storefronts?.length) never.push(`outside ${rule.storefronts.join(', ')}`);
  if (never.length) lines.push(`Never for people ${never.join(' or ')}`);
  return h(long ? 'div' : 'ul', { class: long ? undefined : 'plain' }, lines.map(line => h(long ? 'p' : 'li', null, line)));
}
