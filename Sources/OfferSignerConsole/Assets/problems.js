// The service's problem codes in words, for the title of a refusal the console shows. The
// service's own `detail` says what exactly was wrong; this says what kind of thing happened.
// A code the table does not know is shown by the service's `title`, never as a bare code.

export const PROBLEM_WORDS = {
  invalid_request: 'The request was refused',
  unauthorized: 'Not signed in',
  forbidden: 'Your role cannot do this',
  not_found: 'Not found',
  rate_limited: 'Too many requests: wait a moment and try again',
  unavailable: 'The service is unavailable right now',
  internal_error: 'The service failed',
  payload_too_large: 'Too large',
  webhook_url_refused: 'The service will not send to this address',
  offer_not_at_apple: 'The offer does not exist at Apple for this product',
  catalog_not_found: 'No App Store Connect catalog yet',
  appstore_connect_unavailable: 'App Store Connect could not be reached',
  appstore_api_failed: 'Apple’s App Store Server API failed',
  placement_busy: 'An experiment already runs on this placement',
  experiment_frozen: 'The experiment is running: only its weights may change',
  experiment_not_draft: 'Only a draft can do this',
  experiment_not_running: 'The experiment is not running',
  experiment_stopped: 'The experiment is stopped',
  no_revenue_history: 'No revenue history to cap revenue with',
  invalid_winner: 'That arm cannot win',
};

/** The words for a refusal's code (`error` an ApiError or a problem), else the service's title. */
export function problemTitle(error) {
  const code = error?.code ?? error?.problem?.code ?? '';
  return PROBLEM_WORDS[code] || error?.problem?.title || error?.title || 'The request failed';
}
