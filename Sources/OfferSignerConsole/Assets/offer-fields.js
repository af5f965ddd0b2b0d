// Every field of an offer rule the editor shows, in one table: its JSON path, kind, label
// and help in plain words. A field added to the service's rules needs one entry here.
// Kinds as rule-form.js describes them.

export const SECTIONS = [
  { id: 'basics', title: 'Offer', intro: 'Which App Store offer this is and which products it may be redeemed on.' },
  { id: 'schedule', title: 'When it runs', intro: 'Leave the dates empty to run without a start or an end.' },
  { id: 'eligibility', title: 'Who is eligible', intro: 'Leave a criterion empty and it does not restrict anyone.' },
  { id: 'limits', title: 'Limits', intro: 'How often one person may ask for the offer.' },
  { id: 'measure', title: 'Measuring the offer', intro: 'Keep a share of eligible people back to learn whether the offer brings people back at all.' },
];

export const OFFER_FIELDS = [
  { path: 'offerId', section: 'basics', kind: 'text', label: 'Offer ID', required: true, fixedOnceSaved: true,
    help: 'The promotional offer identifier exactly as set up in App Store Connect, e.g. winback_50_3m. It cannot be changed after saving.' },
  { path: 'bundleId', section: 'basics', kind: 'app', label: 'App',
    help: 'The app (bundle ID) this offer belongs to.' },
  { path: 'productIds', section: 'basics', kind: 'list', label: 'Products', required: true,
    help: 'Subscription product IDs the offer may be redeemed on, separated by commas or new lines.' },
  { path: 'priority', section: 'basics', kind: 'int', label: 'Priority', default: 0,
    help: 'When a person is eligible for several offers, the app shows the highest priority first.' },
  { path: 'enabled', section: 'schedule', kind: 'bool', label: 'Enabled', default: true, explicit: true,
    help: 'A disabled offer is never signed, whatever its dates.' },
  { path: 'startsAt', section: 'schedule', kind: 'datetime', label: 'Starts (UTC)',
    help: 'No signatures before this moment.' },
  { path: 'endsAt', section: 'schedule', kind: 'datetime', label: 'Ends (UTC)',
    help: 'No signatures from this moment on. Must be after the start.' },
  { path: 'eligibility.requireLapsed', section: 'eligibility', kind: 'bool', label: 'Only lapsed subscribers',
    help: 'Only people who had a subscription that has ended (not active, and Apple is not retrying a payment).' },
  { path: 'eligibility.includeBillingRetry', section: 'eligibility', kind: 'bool', label: 'Also people in billing retry',
    help: 'With “Only lapsed subscribers”: also admit people whose payment failed and whom Apple is still retrying to charge.' },
  { path: 'eligibility.minPaidDays', section: 'eligibility', kind: 'int', unit: 'days', label: 'Paid at least',
    help: 'Whole days of paid subscription, free trials not counted. E.g. 180 for people who paid about six months.' },
  { path: 'eligibility.minDaysSinceExpiry', section: 'eligibility', kind: 'int', unit: 'days', label: 'Lapsed at least',
    help: 'Days since the subscription ended, at least. Must not be above “Lapsed at most”.' },
  { path: 'eligibility.maxDaysSinceExpiry', section: 'eligibility', kind: 'int', unit: 'days', label: 'Lapsed at most',
    help: 'Days since the subscription ended, at most.' },
  { path: 'eligibility.waitBetweenOffersDays', section: 'eligibility', kind: 'int', unit: 'days', label: 'Days since their last offer',
    help: 'At least this many days since the person last took an offer: a promotional offer, an offer code, a win-back offer or an App Store retention offer (introductory offers never count).' },
  { path: 'eligibility.waitCountsOfferTypes', section: 'eligibility', kind: 'multi', label: 'Offers the wait counts',
    help: 'Which kinds of offer “Days since their last offer” counts. None ticked: every kind.',
    options: [[2, 'Promotional offers'], [3, 'Offer codes'], [4, 'Win-back offers'], [5, 'App Store retention offers']] },
  { path: 'eligibility.maxRedemptionsPerUser', section: 'eligibility', kind: 'int', unit: 'times', label: 'Redeemed this offer fewer than',
    help: 'E.g. 1 lets each person redeem this offer once.' },
  { path: 'eligibility.excludeRefunded', section: 'eligibility', kind: 'bool', label: 'Exclude people who got a refund',
    help: 'Refuse people who had a purchase in this subscription refunded by Apple.' },
  { path: 'eligibility.storefronts', section: 'eligibility', kind: 'list', upper: true, label: 'Storefronts',
    help: 'Only these App Store countries, as three-letter codes such as USA, CAN, GBR. Empty for every country.' },
  { path: 'eligibility.expirationIntents', section: 'eligibility', kind: 'multi', label: 'Why the subscription ended',
    help: 'Only people whose subscription ended for one of these reasons. None ticked: any reason.',
    options: [[1, 'Cancelled by the customer'], [2, 'Billing error'], [3, 'Declined a price increase'],
      [4, 'Product not available'], [5, 'Other reason']] },
  { path: 'eligibility.appleWinBack', section: 'eligibility', kind: 'choice', label: 'Apple’s own win-back offers',
    help: 'Whether people to whom Apple itself currently offers a win-back offer are excluded, required, or not considered.',
    options: [['', 'Not considered'], ['exclude', 'Exclude them'], ['require', 'Only them']] },
  { path: 'limits.maxSignaturesPerUserPerDay', section: 'limits', kind: 'int', label: 'Signatures per person per day',
    help: 'At most this many signatures for one person in any 24 hours. Empty for no limit.' },
  { path: 'holdoutPercent', section: 'measure', kind: 'int', unit: '%', label: 'Holdout',
    help: 'This share of people who are eligible (0 to 50) is not offered anything: the same people every time, picked at random once. Comparing how often they come back with those who got the offer shows what the offer really changes. Once someone is held out they stay held out, and once someone got the offer they keep getting it, whatever the percentage becomes; a new percentage only places people not seen yet. Empty or 0: everyone eligible gets the offer (the holdout ends, and the outcomes say since when).' },
];

/** The offer editor's form: its sections and fields, and the groups a rule always has. */
export const OFFER_SCHEMA = {
  sections: SECTIONS,
  fields: OFFER_FIELDS,
  finish(rule) {
    for (const group of ['eligibility', 'limits']) if (!rule[group]) rule[group] = {};
  },
};

/** Plain-word names of criteria, as reasons and simulations name them. */
export const CRITERION_LABELS = {
  enabled: 'Offer disabled',
  startsAt: 'Not started yet',
  endsAt: 'Already ended',
  requireLapsed: 'Not lapsed',
  minPaidDays: 'Paid too few days',
  minDaysSinceExpiry: 'Lapsed too recently',
  maxDaysSinceExpiry: 'Lapsed too long ago',
  waitBetweenOffersDays: 'Had an offer too recently',
  maxRedemptionsPerUser: 'Already redeemed',
  excludeRefunded: 'Was refunded',
  storefronts: 'Other country',
  expirationIntents: 'Ended for another reason',
  appleWinBack: 'Apple win-back offer',
  maxSignaturesPerUserPerDay: 'Daily limit reached',
  consentRescinded: 'Consent rescinded',
  holdout: 'In the holdout group',
  appStoreConnect: 'Offer not at Apple for the product',
};

export function criterionLabel(name) {
  return CRITERION_LABELS[name] || name;
}

/** The state of an offer now: live, scheduled, ended or disabled. */
export function offerState(rule, now = Date.now()) {
  if (!rule.enabled) return 'disabled';
  if (rule.startsAt && Date.parse(rule.startsAt) > now) return 'scheduled';
  if (rule.endsAt && Date.parse(rule.endsAt) <= now) return 'ended';
  return 'live';
}

export const STATE_HELP = {
  live: 'Signing now',
  scheduled: 'Starts later',
  ended: 'Past its end date',
  disabled: 'Switched off',
};
