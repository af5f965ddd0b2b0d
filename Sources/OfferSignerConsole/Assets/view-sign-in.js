import { api, session, ApiError } from './api.js';
import { h, replace, field } from './dom.js';

export function renderSignIn(main, { message, onSignedIn }) {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true });
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit', class: 'button button-primary' }, 'Sign in');
  const form = h('form', { class: 'sign-in-form', novalidate: true, onsubmit: async event => {
    event.preventDefault();
    const token = input.value.trim();
    error.hidden = true;
    if (!token) {
      error.textContent = 'Paste your API token first.';
      error.hidden = false;
      input.focus();
      return;
    }
    button.disabled = true;
    try {
      const caller = await api('GET', '/v1/me', { token });
      if (caller.role === 'client') {
        error.textContent = 'This console is for marketing, support and audit staff; a client token only signs offers for apps.';
        error.hidden = false;
        return;
      }
      session.set(token);
      onSignedIn(caller);
    } catch (failure) {
      error.textContent = failure instanceof ApiError && failure.status === 401
        ? 'That token is not valid. Check it and try again.' : failure.message;
      error.hidden = false;
      input.select();
    } finally {
      button.disabled = false;
    }
  } },
  field({ id: 'token', label: 'API token', control: input,
    help: 'Your marketing, auditor or admin token. It is kept in this browser tab only and forgotten when you sign out or close the tab.' }),
  error,
  h('div', { class: 'actions' }, button));
  replace(main, h('div', { class: 'sign-in' },
    h('div', { class: 'sign-in-card' },
      h('p', { class: 'brand brand-large' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }, '◆'), ' offer-signer'),
      h('h1', null, 'Sign in to the console'),
      message ? h('p', { class: 'notice notice-info', role: 'status' }, message) : null,
      form)));
  input.focus();
}
