// The console's only way to the service: the same public API anyone with the token could
// call. The token lives in sessionStorage only (never a URL, a cookie or localStorage).

const TOKEN_KEY = 'offer-signer.token';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || '';
    this.errors = Array.isArray(this.problem.errors) ? this.problem.errors : [];
    this.retryAfter = null; // seconds, from a 503's or 429's Retry-After
  }
}

export const session = {
  get token() { return sessionStorage.getItem(TOKEN_KEY); },
  set(token) { sessionStorage.setItem(TOKEN_KEY, token); },
  clear() { sessionStorage.removeItem(TOKEN_KEY); },
};

let onUnauthorized = () => {};
/** What to do when the service says the token is not (or no longer) valid. */
export function whenUnauthorized(handler) { onUnauthorized = handler; }

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== '') search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A path from segments: each one URL-encoded. */
export function path(...segments) {
  return segments.map((segment, i) => (i === 0 ? segment : encodeURIComponent(segment))).join('/');
}

/** Calls the API; resolves to parsed JSON (or text / the Response when asked), rejects with ApiError.
 *  `upload` sends bytes instead of JSON: `{ type: 'image/png', data: file }`. */
export async function api(method, url, { params, body, upload, accept = 'application/json', token = session.token, raw = false } = {}) {
  const headers = { Accept: accept };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  } else if (upload) {
    headers['Content-Type'] = upload.type;
    init.body = upload.data;
  }
  let response;
  try {
    response = await fetch(url + query(params), init);
  } catch (error) {
    throw new ApiError(0, { title: 'Network error', detail: 'The service could not be reached. Check your connection and try again.' });
  }
  if (!response.ok) {
    let problem = null;
    try { problem = await response.json(); } catch { problem = null; }
    const error = new ApiError(response.status, problem);
    error.retryAfter = response.headers.get('Retry-After');
    if (response.status === 401 && token && token === session.token) onUnauthorized(error);
    throw error;
  }
  if (raw) return response;
  if (response.status === 204) return null; // no content (a DELETE)
  if (accept.startsWith('text/')) return response.text();
  return response.json();
}
