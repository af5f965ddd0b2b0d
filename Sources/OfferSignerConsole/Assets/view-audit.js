import { api, path, ApiError } from './api.js';
import { h, replace, field } from './dom.js';
import { downloadPagedCSV, pagedList, pager } from './audit-list.js';
import { number, dateTime } from './format.js';
import { historyList } from './rule-history.js';
import { OFFER_SCHEMA } from './offer-fields.js';
import { RETENTION_SCHEMA } from './retention-fields.js';
import { INTRODUCTORY_SCHEMA } from './introductory-fields.js';
import { renderRedemptions } from './view-redemptions.js';
import { renderLinks } from './view-links.js';
import { RETENTION_MESSAGING_SCHEMA } from './view-retention-messaging.js';

const TABS = [['signatures', 'Signatures'], ['redemptions', 'Redemptions'], ['links', 'Account links'], ['integrity', 'Integrity'], ['verify', 'Verify'], ['changes', 'Rule changes']];
const FILTERS = [
  ['userId', 'User ID'], ['offerId', 'Offer ID'], ['productId', 'Product ID'], ['bundleId', 'App (bundle ID)'], ['keyId', 'Key ID'],
];
/** The log's filters with a fixed set of values: who asked, and what was signed. */
const CHOICE_FILTERS = [
  ['source', 'Asked by', [['', 'Anyone'], ['api', 'The app (API)'], ['retention', 'App Store retention']]],
  ['format', 'Signature', [['', 'Any kind'], ['jws', 'Promotional offer (JWS)'], ['legacy', 'Promotional offer (legacy)'],
    ['introductory-offer-eligibility', 'Intro-offer eligibility']]],
];
const SOURCES = { api: 'API', retention: 'Retention' };
const FORMATS = { jws: 'Offer JWS', legacy: 'Offer (legacy)', 'introductory-offer-eligibility': 'Intro offer' };

/** What a record signed, in a few words: the format, and for an introductory-offer eligibility whether it grants it. */
function signedWhat(item) {
  const format = FORMATS[item.format] || item.format;
  if (item.allowIntroductoryOffer === true || item.allowIntroductoryOffer === false) {
    return h('span', null, format, ' ', h('span', { class: ['badge', item.allowIntroductoryOffer ? 'badge-live' : 'badge-disabled'] },
      item.allowIntroductoryOffer ? 'allowed' : 'withheld'));
  }
  return format;
}

function tabs(current, href) {
  return h('nav', { class: 'tabs', 'aria-label': 'Audit sections' }, h('ul', null, TABS.map(([id, label]) =>
    h('li', null, h('a', { href: href(['audit', id]), 'aria-current': id === current ? 'page' : undefined }, label)))));
}

/** The audit API's filter from the page's query: RFC 3339 times from the UTC inputs. */
function apiFilter(query) {
  const filter = {};
  for (const [name] of [...FILTERS, ...CHOICE_FILTERS]) if (query.get(name)) filter[name] = query.get(name);
  for (const name of ['from', 'to']) if (query.get(name)) filter[name] = `${query.get(name)}:00Z`;
  return filter;
}

export async function renderAudit(main, context) {
  const tab = context.segments[0] || 'signatures';
  const page = h('div', { class: 'page' }, h('h1', null, 'Audit'), tabs(tab === 'record' ? 'signatures' : tab, context.href));
  replace(main, page);
  const body = h('div', { class: 'tab-body' });
  page.append(body);
  switch (tab) {
    case 'integrity': return integrity(body);
    case 'verify': return verify(body);
    case 'changes': return changes(body, context);
    case 'record': return record(body, context);
    case 'redemptions': return renderRedemptions(body, context);
    case 'links': return renderLinks(body, context);
    default: return signatures(body, context);
  }
}

function signatures(body, context) {
  const { query, href } = context;
  const inputs = {};
  return pagedList(body, context, {
    route: ['audit', 'signatures'], inputs,
    fields: [
      FILTERS.map(([name, label]) => field({ id: `filter-${name}`, label,
        control: inputs[name] = h('input', { type: 'text', value: query.get(name) || '', autocomplete: 'off', spellcheck: 'false' }) })),
      CHOICE_FILTERS.map(([name, label, options]) => field({ id: `filter-${name}`, label,
        control: inputs[name] = h('select', null, options.map(([value, text]) => h('option', { value, selected: (query.get(name) || '') === value }, text))) })),
      [['from', 'Signed from (UTC)'], ['to', 'Signed before (UTC)']].map(([name, label]) => {
        const wrapper = field({ id: `filter-${name}`, label, control: inputs[name] = h('input', { type: 'datetime-local', step: '60', value: query.get(name) || '' }) });
        wrapper.classList.add('filter-time');
        return wrapper;
      }),
      field({ id: 'filter-limit', label: 'Rows per page', control: inputs.limit = h('select', null, ['25', '100', '500', '1000'].map(v =>
        h('option', { value: v, selected: (query.get('limit') || '100') === v }, v))) })],
    actions: h('button', { type: 'button', class: 'button', id: 'download-csv', onclick: event => downloadCSV(query, event.currentTarget) }, 'Download CSV'),
    path: '/v1/audit/signatures', params: { ...apiFilter(query), limit: query.get('limit') || 100 }, noun: 'record',
    table: { caption: 'Signature records', empty: 'No signature matches these filters.',
      onRowClick: item => href(['audit', 'record', item.nonce]), rowLabel: item => `Record ${item.sequence}, nonce ${item.nonce}`,
      columns: [
        { label: '#', class: 'num', value: item => String(item.sequence) },
        { label: 'Signed', class: 'nowrap', value: item => dateTime(item.timestamp) },
        { label: 'Offer', value: item => item.offerId || '—' },
        { label: 'Product', value: item => item.productId },
        { label: 'User', class: 'col-user', value: item => item.userId },
        { label: 'Key', class: 'nowrap', value: item => item.keyId },
        { label: 'API key', value: item => item.apiKeyName },
        { label: 'Signature', class: 'nowrap', value: signedWhat },
        { label: 'Asked by', value: item => SOURCES[item.source] || item.source || '—' },
      ] },
  });
}

/** Every record of the filter as one CSV file (page after page), downloaded by the browser. */
function downloadCSV(query, button) {
  return downloadPagedCSV({ path: '/v1/audit/signatures', params: apiFilter(query), name: 'signatures', noun: 'records', button });
}

const RECORD_FIELDS = [
  ['sequence', 'Sequence'], ['nonce', 'Nonce'], ['format', 'Format'], ['source', 'Source'], ['allowIntroductoryOffer', 'Allows the introductory offer'],
  ['bundleId', 'App'], ['productId', 'Product'], ['offerId', 'Offer'],
  ['userId', 'User (app account token)'], ['keyId', 'Key ID'], ['timestamp', 'Timestamp'], ['signature', 'Signature'],
  ['transactionId', 'Transaction'], ['apiKeyName', 'Requested by (API key)'], ['requestId', 'Request ID'], ['recordedAt', 'Recorded'],
  ['previousHash', 'Previous hash'], ['hash', 'Hash'],
];

function recordList(item) {
  return h('dl', { class: 'facts record' }, RECORD_FIELDS.map(([key, label]) => {
    let value = item[key];
    if (key === 'timestamp') value = `${value} (${dateTime(value)})`;
    if (key === 'recordedAt') value = dateTime(value);
    if (key === 'allowIntroductoryOffer') value = value === true ? 'yes' : value === false ? 'no' : null;
    if (key === 'source') value = { api: 'api (asked for by an API key)', retention: 'retention (the App Store’s Retention Messaging request)' }[value] || value;
    return [h('dt', null, label), h('dd', { class: ['hash', 'signature', 'previousHash', 'nonce'].includes(key) ? 'mono' : undefined }, value === null || value === undefined || value === '' ? '—' : value)];
  }));
}

async function record(body, { segments, href }) {
  const nonce = segments[1] || '';
  body.append(h('p', null, h('a', { href: href(['audit', 'signatures']) }, '← All signatures')));
  try {
    const item = await api('GET', path('/v1/audit/signatures', nonce));
    body.append(h('h2', null, `Record ${item.sequence}`), recordList(item));
  } catch (error) {
    if (error.status === 401) throw error;
    body.append(h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
  }
}

async function integrity(body, signatures = false) {
  const result = h('div', { role: 'status' }, h('p', { class: 'loading' }, signatures ? 'Checking the hash chain and every signature…' : 'Checking the hash chain…'));
  const again = h('button', { type: 'button', class: 'button', onclick: () => { replace(body); integrity(body); } }, 'Check again');
  const withSignatures = h('button', { type: 'button', class: 'button button-quiet', onclick: () => { replace(body); integrity(body, true); } },
    'Check every signature too (slower)');
  body.append(h('h2', null, 'Integrity of the signature log'),
    h('p', { class: 'muted' }, 'Every record’s hash covers its position, its fields and the previous record’s hash; changing, removing or reordering any record breaks the chain from there on. Signed checkpoints pin where the chain stood.'),
    result, h('div', { class: 'actions' }, again, withSignatures));
  try {
    const report = await api('GET', '/v1/audit/integrity', { params: signatures ? { signatures: 'true' } : {} });
    const known = new Set(['ok', 'records', 'firstBadRecord', 'firstBadSequence', 'problem', 'gaps', 'checkpoints', 'signaturesChecked']);
    const cp = report.checkpoints;
    const facts = [
      ['Signed checkpoints', cp ? `${number(cp.checked)} checked: ${number(cp.matched)} match the chain, ${number(cp.inGaps)} fall in accepted gaps, ${number(cp.invalid)} invalid`
        : 'not checked (no audit key is configured)'],
      ['Accepted gaps', (report.gaps || []).length ? (report.gaps || []).map(g => `records ${g.lostFrom}–${g.lostThrough ?? '?'} lost, accepted by ${g.acceptedBy} (${g.reason})`).join('; ') : 'none'],
      ['Record signatures', report.signaturesChecked == null ? 'not checked' : `${number(report.signaturesChecked)} verified`],
    ];
    replace(result,
      h('p', { class: ['integrity', report.ok ? 'integrity-ok' : 'integrity-bad'], id: 'integrity-status' },
        report.ok ? `Intact: all ${number(report.records)} records link.` : `Broken: ${report.problem || 'a record does not link'}.`),
      h('p', { class: 'muted' }, `Checked ${dateTime(Date.now())}.`),
      h('dl', { class: 'facts' }, facts.map(([term, value]) => [h('dt', null, term), h('dd', null, value)])),
      report.firstBadRecord ? [h('h3', null, 'First record that does not link'), recordList(report.firstBadRecord)] : null,
      Object.entries(report).filter(([key]) => !known.has(key)).map(([key, value]) =>
        h('div', null, h('h3', null, key), h('pre', { class: 'mono' }, JSON.stringify(value, null, 2)))));
  } catch (error) {
    if (error.status === 401) throw error;
    replace(result, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
  }
}

const VERIFY_FIELDS = [
  ['bundleId', 'App (bundle ID)'], ['keyIdentifier', 'Key ID'], ['productId', 'Product ID'], ['offerId', 'Offer ID'],
  ['appAccountToken', 'App account token (user ID)'], ['nonce', 'Nonce'], ['timestamp', 'Timestamp (milliseconds)'], ['signature', 'Signature (base64)'],
];

function verify(body) {
  const inputs = {};
  const paste = h('textarea', { rows: '3', spellcheck: 'false', placeholder: '{"bundleId": "…", "keyIdentifier": "…", …}' });
  const jws = h('textarea', { rows: '3', spellcheck: 'false', placeholder: 'eyJ…' });
  const result = h('div', { class: 'verify-result', role: 'status' });
  const form = h('form', { class: 'verify-form', novalidate: true, onsubmit: async event => {
    event.preventDefault();
    const request = {};
    if (jws.value.trim()) {
      request.jws = jws.value.trim();
    } else {
      for (const [name] of VERIFY_FIELDS) request[name] = inputs[name].value.trim();
      request.timestamp = /^\d+$/.test(request.timestamp) ? Number(request.timestamp) : request.timestamp;
    }
    replace(result, h('p', { class: 'loading' }, 'Verifying…'));
    try {
      const answer = await api('POST', '/v1/audit/verify', { body: request });
      replace(result,
        h('ul', { class: 'verdict-lines' },
          h('li', { class: answer.validSignature ? 'yes' : 'no', id: 'verify-valid' }, answer.validSignature ? 'The signature is valid under one of the app’s keys.' : 'The signature is NOT valid under any of the app’s keys.'),
          h('li', { class: answer.issuedHere ? 'yes' : 'no', id: 'verify-issued' }, answer.issuedHere ? 'It is the signature this service logged for that nonce.' : 'This service logged no such signature for that nonce.')),
        answer.record ? [h('h3', null, 'The logged record'), recordList(answer.record)] : null);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) throw error;
      replace(result, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
    }
  } },
  field({ id: 'verify-paste', label: 'Paste a signing answer (optional)', control: paste, wide: true,
    help: 'The JSON the sign or introductory-eligibility endpoint answered, or a JWS; it fills in the fields below.' }),
  field({ id: 'verify-jws', label: 'JWS (promotional offer or introductory-offer eligibility)', control: jws, wide: true,
    help: 'When given, it is verified alone and the legacy fields below are not used.' }),
  h('div', { class: 'filter-grid' }, VERIFY_FIELDS.map(([name, label]) =>
    field({ id: `verify-${name}`, label, control: inputs[name] = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' }), wide: name === 'signature' }))),
  h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, 'Verify')));
  paste.addEventListener('input', () => {
    if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(paste.value.trim())) jws.value = paste.value.trim();
    try {
      const value = JSON.parse(paste.value);
      for (const [name] of VERIFY_FIELDS) if (value[name] !== undefined) inputs[name].value = String(value[name]);
      if (value.appAccountToken === undefined && value.userId) inputs.appAccountToken.value = value.userId;
      if (value.keyIdentifier === undefined && value.keyId) inputs.keyIdentifier.value = value.keyId;
      jws.value = typeof value.jws === 'string' ? value.jws : '';
    } catch { /* not JSON yet */ }
  });
  body.append(h('h2', null, 'Verify a signature'),
    h('p', { class: 'muted' }, 'Was this signature (legacy, or a JWS) made with one of the app’s keys (active or retired), and is it the one this service issued?'),
    form, result);
}

/** How the objects of an App Store Connect change read: prices, Apple's errors, the JSON body sent. */
const APPSTORE_FORMATS = {
  prices: prices => prices.map(p => `${p.territory} ${p.customerPrice ? `${p.currency || ''} ${p.customerPrice}`.trim() : 'free'}${p.pricePointId ? ` (${p.pricePointId})` : ''}`).join(', '),
  appleErrors: errors => errors.map(e => `${e.status} ${e.code}: ${e.title}${e.detail ? ` — ${e.detail}` : ''}`).join('; '),
  json: value => JSON.stringify(value).replace(/([,:])(?=["{\[])/g, '$1 '), // spaced, so that it wraps
};

/** A promotional offer created, re-priced or deleted at App Store Connect (`GET /v1/audit/appstore-changes`): each step's record. */
const APPSTORE_OFFER_SCHEMA = {
  sections: [],
  fields: [
    ['ruleId', 'Record'], ['bundleId', 'App'], ['productId', 'Product'], ['offerCode', 'Offer ID'], ['state', 'Step'], ['enabled', 'At Apple', 'bool'],
    ['name', 'Reference name'], ['offerMode', 'Offer type'], ['duration', 'Duration'], ['numberOfPeriods', 'Periods'], ['prices', 'Prices'],
    ['subscriptionAppleId', 'Subscription (Apple ID)'], ['offerAppleId', 'Offer (Apple ID)'], ['request.method', 'Sent'], ['request.path', 'To'],
    ['request.body', 'Body sent', 'json'], ['appleStatus', 'Apple’s status'], ['appleErrors', 'Apple’s errors', 'appleErrors'],
  ].map(([path, label, kind = 'text']) => ({ path, label, kind: kind === 'bool' ? 'bool' : 'text', format: APPSTORE_FORMATS[path] || APPSTORE_FORMATS[kind] })),
};

/** The kinds of audited rules: their change routes, the filter's name and the form that reads them. */
const RULE_KINDS = [
  { id: 'offers', label: 'Offers', api: '/v1/audit/offer-changes', idParam: 'offerId', schema: OFFER_SCHEMA },
  { id: 'retention', label: 'Retention rules', api: '/v1/audit/retention-rule-changes', idParam: 'ruleId', schema: RETENTION_SCHEMA },
  { id: 'introductory', label: 'Introductory-offer rules', api: '/v1/audit/introductory-offer-rule-changes', idParam: 'ruleId', schema: INTRODUCTORY_SCHEMA },
  { id: 'retention-messaging', label: 'Retention Messaging at Apple', api: '/v1/audit/retention-messaging-changes', idParam: 'ruleId',
    schema: RETENTION_MESSAGING_SCHEMA },
  { id: 'appstore-offers', label: 'Promotional offers at Apple', api: '/v1/audit/appstore-changes', idParam: 'ruleId', schema: APPSTORE_OFFER_SCHEMA },
];

async function changes(body, { query, navigate, href }) {
  const kind = RULE_KINDS.find(k => k.id === query.get('rules')) || RULE_KINDS[0];
  const id = query.get(kind.idParam) || '';
  const kindSelect = h('select', null, RULE_KINDS.map(k => h('option', { value: k.id, selected: k === kind }, k.label)));
  const idInput = h('input', { type: 'text', value: id, autocomplete: 'off', spellcheck: 'false' });
  const filters = { ...(kind === RULE_KINDS[0] ? {} : { rules: kind.id }), ...(id ? { [kind.idParam]: id } : {}) };
  body.append(h('h2', null, 'Rule changes'),
    h('form', { class: 'toolbar', onsubmit: event => {
      event.preventDefault();
      const next = RULE_KINDS.find(k => k.id === kindSelect.value);
      const text = idInput.value.trim();
      const params = { ...(next === RULE_KINDS[0] ? {} : { rules: next.id }), ...(text ? { [next.idParam]: text } : {}) };
      navigate(['audit', 'changes'], Object.keys(params).length ? params : undefined);
    } }, field({ id: 'changes-kind', label: 'Rules', control: kindSelect }),
    field({ id: 'changes-offer', label: 'Offer or rule ID (empty for all)', control: idInput }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Show'))));
  const results = h('div', null, h('p', { class: 'loading' }, 'Loading…'));
  body.append(results);
  try {
    const page = await api('GET', kind.api, { params: { [kind.idParam]: id, cursor: query.get('cursor'), limit: 100 } });
    replace(results,
      h('p', { class: 'muted' }, `${kind.label}: oldest first across pages; newest first within this page.`),
      historyList(page.items, { schema: kind.schema, showName: true }),
      pager({ href, route: ['audit', 'changes'], query, next: page.nextCursor, filters }));
  } catch (error) {
    if (error.status === 401) throw error;
    replace(results, h('p', { class: 'notice notice-error', role: 'alert' }, error.message));
  }
}
