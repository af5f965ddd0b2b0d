// Apple's Retention Messaging API from the Retention page: the messages with Apple's state, an
// upload form with a preview of how the sheet reads, images, default messages per product and
// locale, and (admin) the real-time URL and the performance test. Every call goes through the
// service's admin routes, which check Apple's limits and record each change in the audit.
import { api, path, ApiError } from './api.js';
import { h, replace, field, table, toast, setFieldError } from './dom.js';
import { dateTime, number } from './format.js';

const LIMITS = { header: 66, body: 144, altText: 150 };
const STATES = { APPROVED: 'badge-live', PENDING: 'badge-scheduled', REJECTED: 'badge-disabled' };

function stateBadge(state) {
  return h('span', { class: ['badge', STATES[state] || 'badge-ended'], title: 'Apple’s review state' }, state || 'unknown');
}

/** A failure as a notice: Apple's own words and code when Apple refused. */
function problemNotice(error) {
  const apple = error instanceof ApiError && error.problem.appleErrorCode ? ` (Apple ${error.problem.appleErrorCode})` : '';
  return h('p', { class: 'notice notice-error', role: 'alert' }, `${error.message}${apple}`);
}

/** A text input with a live character count against Apple's limit. */
function counted(id, limit, value = '', multiline = false) {
  const control = h(multiline ? 'textarea' : 'input', { id, type: multiline ? undefined : 'text', value, maxlength: String(limit), rows: multiline ? '3' : undefined, autocomplete: 'off' });
  const count = h('span', { class: 'counter', 'aria-live': 'polite' });
  const update = () => { count.textContent = `${[...control.value].length}/${limit}`; };
  control.addEventListener('input', update);
  update();
  return { control, count };
}

/** A labelled field for a `counted` control, its count beside the label. */
function countedField(id, label, { control, count }, help) {
  const made = field({ id, label, control, help });
  made.querySelector('label').append(' ', count);
  return made;
}

/** How the App Store's sheet reads: header (above the image or the body), image, body, bullet points. */
function preview({ header, body, altText, imageId, aboveImage }) {
  const image = imageId ? h('div', { class: 'sheet-image', role: 'img', 'aria-label': altText || 'image' }, altText || 'Image') : null;
  const title = h('p', { class: 'sheet-header' }, header || 'Header');
  return h('div', { class: 'sheet', 'aria-label': 'Preview of the retention sheet' },
    h('p', { class: 'sheet-caption' }, 'Preview · how the sheet reads'),
    aboveImage && image ? [title, image] : [image, title],
    h('p', { class: 'sheet-body' }, body || 'The message body appears here.'),
    h('p', { class: 'sheet-buttons' }, h('span', null, 'Continue subscription'), h('span', null, 'Cancel subscription')));
}

export async function appendRetentionMessaging(main, { me, query, navigate }) {
  const page = main.querySelector('.page');
  if (!page) return;
  const apps = me.apps || [];
  const bundleId = apps.length > 1 ? (query.get('bundleId') || apps[0]) : '';
  const environment = query.get('environment') === 'Sandbox' ? 'Sandbox' : 'Production';
  const params = { bundleId, environment };
  const admin = me.role === 'admin';

  const envSelect = h('select', { id: 'rm-environment', onchange: event => navigate(['retention'],
    { ...(bundleId ? { bundleId } : {}), ...(event.target.value === 'Sandbox' ? { environment: 'Sandbox' } : {}) }) },
  ['Production', 'Sandbox'].map(name => h('option', { value: name, selected: name === environment }, name)));
  const messages = h('div', { id: 'rm-messages' }, h('p', { class: 'loading' }, 'Loading messages…'));
  const images = h('div', { id: 'rm-images' }, h('p', { class: 'loading' }, 'Loading images…'));
  const defaults = h('div', { id: 'rm-defaults' }, h('p', { class: 'loading' }, 'Loading defaults…'));
  page.append(h('section', { class: 'messaging', 'aria-labelledby': 'rm-title' },
    h('div', { class: 'page-head' }, h('h2', { id: 'rm-title' }, 'Retention messages at Apple')),
    h('p', { class: 'lead' }, 'The messages, images and default messages configured at Apple’s Retention Messaging API. A rule whose message Apple has not approved is skipped when the App Store asks.'),
    h('div', { class: 'toolbar' }, field({ id: 'rm-environment', label: 'Apple environment', control: envSelect })),
    h('h3', null, 'Messages'), messages, uploadForm(),
    h('h3', null, 'Images'), images, imageForm(),
    h('h3', null, 'Default messages per product and locale'), defaults, defaultForm(),
    admin ? realtimeSection() : null,
    admin ? performanceSection() : null));

  /**
   * `into` filled with a table of what Apple holds of `kind` (`options`: caption, empty text and
   * columns), each row ending in a button deleting the item whose path segments `ids` gives and
   * then calling `reload`; or with the problem that kept the list. The items, when listed.
   */
  async function listAtApple(into, kind, ids, reload, options) {
    try {
      const { items } = await api('GET', `/v1/admin/${kind}`, { params });
      replace(into, table({ ...options, rows: items, columns: [...options.columns,
        { label: '', value: item => h('button', { type: 'button', class: 'button button-small', onclick: () => remove(kind, ids(item), reload) }, 'Delete') }] }));
      return items;
    } catch (error) {
      if (error.status === 401) throw error;
      replace(into, problemNotice(error));
    }
  }

  let known = [];
  async function loadMessages() {
    known = await listAtApple(messages, 'retention-messages', m => m.messageIdentifier, loadMessages, {
      caption: 'Messages at Apple', empty: 'No messages at Apple yet.',
      columns: [
        { label: 'Message ID', class: 'col-id', value: m => m.messageIdentifier },
        { label: 'State', value: m => stateBadge(m.state) },
        { label: 'Header', value: m => m.header ?? h('span', { class: 'muted' }, 'uploaded elsewhere') },
        { label: 'Body', value: m => m.body ?? '' },
        { label: 'Uploaded', value: m => (m.uploadedAt ? dateTime(m.uploadedAt) : '—') },
      ],
    }) ?? known;
  }

  function loadImages() {
    return listAtApple(images, 'retention-images', i => i.imageIdentifier, loadImages, {
      caption: 'Images at Apple', empty: 'No images at Apple yet.',
      columns: [
        { label: 'Image ID', class: 'col-id', value: i => i.imageIdentifier },
        { label: 'State', value: i => stateBadge(i.state) },
        { label: 'Size', value: i => (i.imageSize ? `${i.imageSize} · ${number(i.width)} × ${number(i.height)}` : '—') },
      ],
    });
  }

  function loadDefaults() {
    return listAtApple(defaults, 'retention-defaults', d => [d.productId, d.locale], loadDefaults, {
      caption: 'Default messages', empty: 'No default message configured through the service.',
      columns: [
        { label: 'Product', class: 'col-id', value: d => d.productId },
        { label: 'Locale', value: d => d.locale },
        { label: 'Message ID', value: d => d.messageIdentifier },
      ],
    });
  }

  async function remove(kind, ids, reload) {
    const segments = Array.isArray(ids) ? ids : [ids];
    if (!window.confirm(`Delete ${segments.join(' ')} at Apple?`)) return;
    try {
      await api('DELETE', path(`/v1/admin/${kind}`, ...segments), { params });
      toast('Deleted at Apple.');
      await reload();
    } catch (error) {
      if (error.status === 401) throw error;
      toast(error.message, 'error');
    }
  }

  function uploadForm() {
    const id = h('input', { id: 'rm-id', type: 'text', value: crypto.randomUUID(), autocomplete: 'off', spellcheck: 'false' });
    const header = counted('rm-header', LIMITS.header);
    const body = counted('rm-body', LIMITS.body, '', true);
    const imageId = h('input', { id: 'rm-image-id', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'optional' });
    const altText = counted('rm-alt', LIMITS.altText);
    const position = h('select', { id: 'rm-position' }, h('option', { value: '' }, 'Above the body'), h('option', { value: 'ABOVE_IMAGE' }, 'Above the image'));
    const sheet = h('div', { class: 'sheet-slot' });
    const status = h('div', { role: 'status' });
    const draw = () => replace(sheet, preview({ header: header.control.value, body: body.control.value, altText: altText.control.value,
      imageId: imageId.value.trim(), aboveImage: position.value === 'ABOVE_IMAGE' }));
    [header.control, body.control, imageId, altText.control, position].forEach(c => c.addEventListener('input', draw));
    position.addEventListener('change', draw);
    draw();
    const form = h('form', { class: 'messaging-form', id: 'rm-upload', onsubmit: async event => {
      event.preventDefault();
      const message = { header: header.control.value, body: body.control.value };
      if (imageId.value.trim()) message.image = { imageIdentifier: imageId.value.trim(), altText: altText.control.value };
      if (position.value) message.headerPosition = position.value;
      replace(status);
      try {
        const answer = await api('PUT', path('/v1/admin/retention-messages', id.value.trim()), { params, body: message });
        toast(`Uploaded: Apple says ${answer.state || 'nothing yet'}.`);
        id.value = crypto.randomUUID();
        await loadMessages();
      } catch (error) {
        if (error.status === 401) throw error;
        replace(status, problemNotice(error));
        for (const problem of error.errors) {
          const match = /^'(header|body|image\.altText)'/.exec(problem);
          if (match) setFieldError(form, { header: 'rm-header', body: 'rm-body', 'image.altText': 'rm-alt' }[match[1]], problem);
        }
      }
    } },
    h('div', { class: 'form-columns' },
      h('div', null,
        field({ id: 'rm-id', label: 'Message ID (a new UUID)', control: id }),
        countedField('rm-header', 'Header', header, `At most ${LIMITS.header} characters.`),
        countedField('rm-body', 'Body', body, `At most ${LIMITS.body} characters.`),
        field({ id: 'rm-image-id', label: 'Image ID', control: imageId, help: 'A FULL_SIZE image uploaded below; empty for a text message.' }),
        countedField('rm-alt', 'Image description', altText, `At most ${LIMITS.altText} characters.`),
        field({ id: 'rm-position', label: 'Header position', control: position }),
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, 'Upload message')),
        status),
      sheet));
    return form;
  }

  function imageForm() {
    const id = h('input', { id: 'ri-id', type: 'text', value: crypto.randomUUID(), autocomplete: 'off', spellcheck: 'false' });
    const file = h('input', { id: 'ri-file', type: 'file', accept: 'image/png' });
    const size = h('select', { id: 'ri-size' }, h('option', { value: 'FULL_SIZE' }, 'Full size (3840 wide, 160–2160 high)'),
      h('option', { value: 'BULLET_POINT' }, 'Bullet point (1024 × 1024)'));
    const status = h('div', { role: 'status' });
    return h('form', { class: 'toolbar', id: 'ri-upload', onsubmit: async event => {
      event.preventDefault();
      replace(status);
      const chosen = file.files[0];
      if (!chosen) { replace(status, h('p', { class: 'notice notice-error' }, 'Choose a PNG file.')); return; }
      try {
        await api('PUT', path('/v1/admin/retention-images', id.value.trim()), { params: { ...params, imageSize: size.value },
          upload: { type: 'image/png', data: chosen } });
        toast('Image uploaded.');
        id.value = crypto.randomUUID();
        await loadImages();
      } catch (error) {
        if (error.status === 401) throw error;
        replace(status, problemNotice(error));
      }
    } },
    field({ id: 'ri-id', label: 'Image ID', control: id, wide: true }),
    field({ id: 'ri-size', label: 'Size', control: size }),
    field({ id: 'ri-file', label: 'PNG without transparency', control: file }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Upload image')),
    status);
  }

  function defaultForm() {
    const product = h('input', { id: 'rd-product', type: 'text', autocomplete: 'off', spellcheck: 'false' });
    const locale = h('input', { id: 'rd-locale', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'en-US' });
    const message = h('input', { id: 'rd-message', type: 'text', autocomplete: 'off', spellcheck: 'false', list: 'rd-approved' });
    const approved = h('datalist', { id: 'rd-approved' });
    message.addEventListener('focus', () => replace(approved, known.filter(m => m.state === 'APPROVED').map(m => h('option', { value: m.messageIdentifier }, m.header || ''))));
    const status = h('div', { role: 'status' });
    return h('form', { class: 'toolbar', id: 'rd-set', onsubmit: async event => {
      event.preventDefault();
      replace(status);
      try {
        await api('PUT', path('/v1/admin/retention-defaults', product.value.trim(), locale.value.trim()), { params, body: { messageIdentifier: message.value.trim() } });
        toast('Default message set.');
        await loadDefaults();
      } catch (error) {
        if (error.status === 401) throw error;
        replace(status, problemNotice(error));
      }
    } },
    field({ id: 'rd-product', label: 'Product ID', control: product }),
    field({ id: 'rd-locale', label: 'Locale', control: locale }),
    field({ id: 'rd-message', label: 'Approved message ID', control: message, wide: true }), approved,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Set default')),
    status);
  }

  function realtimeSection() {
    const current = h('p', { id: 'rt-current', role: 'status' }, 'Loading…');
    const url = h('input', { id: 'rt-url', type: 'text', inputmode: 'url', placeholder: 'the public address of this service’s /v1/retention/appstore', autocomplete: 'off' });
    const load = async () => {
      try {
        const answer = await api('GET', '/v1/admin/retention-realtime-url', { params });
        replace(current, 'Apple calls ', h('code', null, answer.realtimeURL));
      } catch (error) {
        if (error.status === 401) throw error;
        replace(current, error.status === 404 ? 'No real-time URL is configured: Apple shows the default messages only.' : problemNotice(error));
      }
    };
    load();
    return h('div', null, h('h3', null, 'Real-time URL'), current,
      h('form', { class: 'toolbar', id: 'rt-set', onsubmit: async event => {
        event.preventDefault();
        try {
          await api('PUT', '/v1/admin/retention-realtime-url', { params, body: { realtimeURL: url.value.trim() } });
          toast('Real-time URL set.');
          await load();
        } catch (error) {
          if (error.status === 401) throw error;
          replace(current, problemNotice(error));
        }
      } }, field({ id: 'rt-url', label: 'This service’s /v1/retention/appstore', control: url, wide: true }),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Set URL'))));
  }

  function performanceSection() {
    const transaction = h('input', { id: 'pt-transaction', type: 'text', inputmode: 'numeric', autocomplete: 'off', placeholder: 'a Sandbox originalTransactionId' });
    const result = h('div', { id: 'pt-result', role: 'status' });
    const showResult = async requestId => {
      try {
        const r = await api('GET', path('/v1/admin/retention-performance-tests', requestId), { params });
        const times = r.responseTimes || {};
        replace(result, h('dl', { class: 'facts' },
          h('dt', null, 'Test'), h('dd', null, h('code', null, requestId)),
          h('dt', null, 'Result'), h('dd', null, h('span', { class: ['badge', r.result === 'PASS' ? 'badge-live' : r.result === 'FAIL' ? 'badge-disabled' : 'badge-scheduled'] }, r.result || 'unknown')),
          h('dt', null, 'Success rate'), h('dd', null, r.successRate === undefined ? '—' : `${r.successRate}% (threshold ${r.config?.successRateThreshold ?? '—'}%)`),
          h('dt', null, 'Response times'), h('dd', null, `average ${times.average ?? '—'} ms · p50 ${times.p50 ?? '—'} · p90 ${times.p90 ?? '—'} · p99 ${times.p99 ?? '—'} ms (threshold ${r.config?.responseTimeThreshold ?? '—'} ms)`),
          h('dt', null, 'Pending'), h('dd', null, number(r.numPending)),
          h('dt', null, 'Failures'), h('dd', null, Object.entries(r.failures || {}).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none')),
        h('button', { type: 'button', class: 'button button-small', onclick: () => showResult(requestId) }, 'Refresh result'));
      } catch (error) {
        if (error.status === 401) throw error;
        replace(result, problemNotice(error));
      }
    };
    return h('div', null, h('h3', null, 'Performance test'),
      h('p', { class: 'muted' }, 'Apple sends test requests to the real-time URL; Production’s URL needs a passed test.'),
      h('form', { class: 'toolbar', id: 'pt-start', onsubmit: async event => {
        event.preventDefault();
        try {
          const started = await api('POST', '/v1/admin/retention-performance-tests', { params, body: { originalTransactionId: transaction.value.trim() } });
          toast('Performance test started.');
          await showResult(started.requestId);
        } catch (error) {
          if (error.status === 401) throw error;
          replace(result, problemNotice(error));
        }
      } }, field({ id: 'pt-transaction', label: 'Sandbox original transaction ID', control: transaction }),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, 'Start test'))),
      result);
  }

  await Promise.all([loadMessages(), loadImages(), loadDefaults()]);
}

/** How the audit reads a change at Apple's Retention Messaging API (the record's fields, in plain words). */
export const RETENTION_MESSAGING_SCHEMA = {
  sections: [],
  fields: [
    ['ruleId', 'Record'], ['bundleId', 'App'], ['enabled', 'At Apple', 'bool'], ['environment', 'Environment'], ['item', 'What'], ['messageIdentifier', 'Message ID'],
    ['message.header', 'Header'], ['message.body', 'Body'], ['message.image.imageIdentifier', 'Image ID'],
    ['message.image.altText', 'Image description'], ['message.headerPosition', 'Header position'],
    ['imageIdentifier', 'Image ID'], ['image.imageSize', 'Image size'], ['image.width', 'Width'], ['image.height', 'Height'],
    ['image.sha256', 'PNG SHA-256'], ['productId', 'Product'], ['locale', 'Locale'], ['realtimeURL', 'Real-time URL'],
    ['originalTransactionId', 'Test transaction'], ['requestId', 'Test request ID'],
  ].map(([path, label, kind = 'text']) => ({ path, label, kind })),
};
