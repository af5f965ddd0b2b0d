/// The kinds of event a webhook can subscribe to, as `type` names them in the event document.
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A signature was appended to the signature log (any format).
    case offerSigned = "offer.signed"
    /// A promotional offer was refused to an identified customer of a known offer (not
    /// eligible, held out, consent rescinded, over the offer's quota, a placement's offers all
    /// refused or an experiment's arm), with the reasons; written only while a webhook of the
    /// app subscribes to it, so refusals cost nothing otherwise.
    case offerRefused = "offer.refused"
    /// A redemption of a managed offer was matched to a signature of the log.
    case redemptionMatched = "redemption.matched"
    /// A redemption of a managed offer that no signature of the log explains.
    case redemptionUnmatched = "redemption.unmatched"
    /// What became of a redemption changed: retained, churned or refunded.
    case outcomeChanged = "outcome.changed"
    /// Apple's `RESCIND_CONSENT` notification for an app download was recorded.
    case consentRescinded = "consent.rescinded"
    /// An operator cleared a consent rescinding.
    case consentCleared = "consent.cleared"
    /// A subscription was linked to its user's app account token at Apple.
    case appAccountTokenLinked = "appAccountToken.linked"
    /// An integrity check found the signature log's hash chain broken or regressed.
    case chainIntegrityFailed = "chain.integrity_failed"
    /// An experiment started (its placement's users are assigned from now on).
    case experimentStarted = "experiment.started"
    /// An experiment stopped, with the arm named the winner if any.
    case experimentStopped = "experiment.stopped"

    /// The types in the order the documentation lists them.
    public static var names: [String] { allCases.map(\.rawValue) }
}
