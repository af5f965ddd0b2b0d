// The console's shell: sign-in, role-aware navigation and a hash router. Every view gets
// the signed-in caller and renders into <main>.
import { api, session, whenUnauthorized, ApiError } from './api.js';
import { h, replace, toast } from './dom.js';
import { renderSignIn } from './view-sign-in.js';
import { renderOffers } from './view-offers.js';
import { renderOfferEditor } from './view-offer-editor.js';
import { renderActivity } from './view-activity.js';
import { renderUsers } from './view-users.js';
import { renderAudit } from './view-audit.js';
import { renderRules } from './view-rules.js';
import { renderRuleEditor } from './view-rule-editor.js';
import { RETENTION } from './retention-fields.js';
import { INTRODUCTORY } from './introductory-fields.js';
import { appendRetentionMessaging } from './view-retention-messaging.js';
import { renderPlacements } from './view-placements.js';
import { renderPlacementEditor } from './view-placement-editor.js';
import { renderExperiments } from './view-experiments.js';
import { renderExperimentEditor } from './view-experiment-editor.js';
import { renderWebhooks } from './view-webhooks.js';
import { renderCatalog } from './view-catalog.js';
import { renderWebhookEditor } from './view-webhook-editor.js';

/** Pages, who may see them (admin sees all; `roles: []` is admin only), how they render, and their editor (`#/page/new`, `#/page/edit/id`). */
const PAGES = [
  { id: 'offers', label: 'Offers', roles: ['marketing'], render: renderOffers,
    edit: (main, context, id) => renderOfferEditor(main, { ...context, offerId: id }) },
  ...[[RETENTION, 'Retention'], [INTRODUCTORY, 'Intro offers']].map(([kind, label]) => ({
    id: kind.id, label, title: kind.title, roles: ['marketing'],
    render: async (main, context) => {
      await renderRules(main, { ...context, kind });
      if (kind === RETENTION) await appendRetentionMessaging(main, context);
    },
    edit: (main, context, id) => renderRuleEditor(main, { ...context, kind, ruleId: id }),
  })),
  { id: 'placements', label: 'Placements', roles: ['marketing'], render: renderPlacements,
    edit: (main, context, id) => renderPlacementEditor(main, { ...context, placementId: id }) },
  { id: 'experiments', label: 'Experiments', roles: ['marketing'], render: renderExperiments,
    edit: (main, context, id) => renderExperimentEditor(main, { ...context, experimentId: id }) },
  { id: 'activity', label: 'Activity', roles: ['marketing', 'auditor'], render: renderActivity },
  { id: 'users', label: 'Users', roles: ['marketing'], render: renderUsers },
  { id: 'audit', label: 'Audit', roles: ['auditor'], render: renderAudit },
  { id: 'catalog', label: 'Catalog', title: 'The App Store Connect catalog', roles: ['marketing', 'auditor'], render: renderCatalog },
  { id: 'webhooks', label: 'Webhooks', roles: [], render: renderWebhooks,
    edit: (main, context, id) => renderWebhookEditor(main, { ...context, webhookId: id }) },
];

const main = document.getElementById('main');
let me = null;

function allowed(page) {
  return me && (me.role === 'admin' || page.roles.includes(me.role));
}

/** `#/offers/edit/x` → ['offers', 'edit', 'x'] (segments decoded). */
function route() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [pathPart, queryPart] = hash.split('?');
  const segments = pathPart.split('/').filter(Boolean).map(segment => {
    try { return decodeURIComponent(segment); } catch { return segment; }
  });
  return { segments, query: new URLSearchParams(queryPart || '') };
}

/** Goes to a hash route built from segments (each encoded). */
export function navigate(segments, query) {
  const text = `#/${segments.map(encodeURIComponent).join('/')}${query ? `?${new URLSearchParams(query)}` : ''}`;
  if (location.hash === text) render(); else location.hash = text;
}

export function href(segments, query) {
  return `#/${segments.map(encodeURIComponent).join('/')}${query ? `?${new URLSearchParams(query)}` : ''}`;
}

function renderNav(current) {
  const nav = document.getElementById('nav');
  const pages = PAGES.filter(allowed);
  // An administrator's many pages leave no room for the name beside them at middle widths: it moves into Sign out's title.
  document.getElementById('topbar').classList.toggle('topbar-crowded', pages.length > 7);
  document.getElementById('sign-out').title = `Signed in as ${me.name} (${me.role})`;
  replace(nav, h('ul', null, pages.map(page =>
    h('li', null, h('a', { href: `#/${page.id}`, title: page.title, 'aria-current': page.id === current ? 'page' : undefined }, page.label)))));
  document.getElementById('who').textContent = `${me.name} · ${me.role}`;
  document.getElementById('topbar').hidden = false;
}

/** The only notices the sign-in page shows, by the code the URL carries: text in a URL is never shown. */
const SIGN_IN_NOTICES = {
  'client-token': 'This console is for marketing, support and audit staff; a client token only signs offers for apps.',
  expired: 'Your session has ended: the token is no longer valid. Sign in again.',
  'signed-out': 'You are signed out.',
};

function signOut(notice) {
  session.clear();
  me = null;
  document.getElementById('topbar').hidden = true;
  const text = notice ? `#/sign-in?${new URLSearchParams({ notice })}` : '#/sign-in';
  if (location.hash === text) render(); else location.hash = text;
}

/**
 * A fresh element in <main> for each render, so that a view still loading when the address
 * changes again (a slow page, a loaded machine) writes into an element no longer shown
 * instead of over the page asked for since.
 */
function freshView() {
  const view = h('div', { class: 'view' });
  replace(main, view);
  return view;
}

async function render() {
  const { segments, query } = route();
  const view = freshView();
  if (!session.token) {
    document.getElementById('topbar').hidden = true;
    const notice = query.get('notice');
    return renderSignIn(view, { message: Object.hasOwn(SIGN_IN_NOTICES, notice ?? '') ? SIGN_IN_NOTICES[notice] : undefined, onSignedIn });
  }
  if (!me) {
    try {
      me = await api('GET', '/v1/me');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return; // whenUnauthorized signs out
      if (view.isConnected) replace(view, h('div', { class: 'page' }, h('h1', null, 'The service could not be reached'), h('p', null, error.message)));
      return;
    }
    if (me.role === 'client') {
      return signOut('client-token');
    }
  }
  const first = PAGES.find(allowed);
  const page = PAGES.find(p => p.id === segments[0]);
  if (!page || !allowed(page)) {
    if (segments[0] && segments[0] !== 'sign-in' && page) toast(`Your role (${me.role}) cannot open ${page.label}.`, 'error');
    location.replace(`#/${first.id}`);
    return;
  }
  renderNav(page.id);
  closeMenu();
  const context = { me, segments: segments.slice(1), query, navigate, href };
  try {
    if (page.edit && (segments[1] === 'new' || segments[1] === 'edit')) {
      await page.edit(view, context, segments[1] === 'edit' ? segments[2] : null);
    } else {
      await page.render(view, context);
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    replace(view, h('div', { class: 'page' }, h('h1', { tabindex: '-1' }, 'Something went wrong'),
      h('p', { class: 'notice notice-error' }, error.message)));
  }
  if (!view.isConnected) return; // the address changed while this page loaded
  const heading = view.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    if (document.activeElement === document.body || !main.contains(document.activeElement)) heading.focus({ preventScroll: true });
  }
}

function onSignedIn(caller) {
  me = caller;
  location.hash = `#/${PAGES.find(allowed).id}`;
}

function closeMenu() {
  document.getElementById('menu-toggle').setAttribute('aria-expanded', 'false');
  document.getElementById('nav').classList.remove('open');
}

whenUnauthorized(() => signOut('expired'));
document.getElementById('sign-out').addEventListener('click', () => signOut('signed-out'));
document.getElementById('menu-toggle').addEventListener('click', event => {
  const open = event.currentTarget.getAttribute('aria-expanded') !== 'true';
  event.currentTarget.setAttribute('aria-expanded', String(open));
  document.getElementById('nav').classList.toggle('open', open);
});
window.addEventListener('hashchange', render);
render();
