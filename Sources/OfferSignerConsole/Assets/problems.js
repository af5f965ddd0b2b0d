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
  not_eligible: 'The customer is not eligible for the offer',
  proof_required: 'Proof of purchase from the customer’s device is required',
  proof_mismatch: 'The proof of purchase does not match the request',
  invalid_signed_data: 'Apple-signed data did not verify',
  consent_rescinded: 'A parent or guardian withdrew consent for this customer',
  chain_regressed: 'The signature log went backwards: signing is stopped until an operator accepts the loss',
  signing_key_unavailable: 'The signing key cannot sign right now',
  placement_not_found: 'No such placement, or it is disabled',
  experiment_not_found: 'No such experiment',
  experiment_control: 'The user is in the experiment’s control group: no offer',
  invalid_arms: 'The experiment’s arms are not valid',
  duplicate_arm_id: 'Two arms have the same ID',
  invalid_weights: 'The arms’ weights are not valid',
  unknown_placement: 'The experiment names a placement that does not exist',
  unknown_offer: 'An arm names an offer that does not exist',
  stale_request: 'The App Store’s request is too old or from the future',
  request_identifier_reused: 'The App Store’s request identifier was used for another subscription',
  unsupported_media_type: 'The service does not take this kind of content',
  method_not_allowed: 'The service does not allow this here',
  uri_too_long: 'The address is too long',
  not_implemented: 'The service does not support this',
  appstore_connect_not_configured: 'The app has no App Store Connect Team key',
  product_not_at_apple: 'No such subscription at App Store Connect',
  promotional_offer_not_found: 'No such promotional offer at Apple',
  offer_code_taken: 'The offer ID is taken',
  promotional_offer_limit: 'Apple’s limit of promotional offers is reached',
  price_not_available: 'Apple has no such price',
  offer_in_use: 'Offer rules still use this offer',
  appstore_connect_conflict: 'App Store Connect refused the change',
  appstore_connect_refused: 'App Store Connect refused the request',
  appstore_connect_failed: 'App Store Connect failed',
};

/** The words for a refusal's code (`error` an ApiError or a problem), else the service's title. */
export function problemTitle(error) {
  const code = error?.code ?? error?.problem?.code ?? '';
  return PROBLEM_WORDS[code] || error?.problem?.title || error?.title || 'The request failed';
}
