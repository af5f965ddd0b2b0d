import AppStoreServerAPI
import OfferSignerCore

/// Why a Retention Messaging API change or read did not happen.
public enum RetentionMessagingFailure: Error, Sendable, CustomStringConvertible {
    /// Refused before anything was sent: each sentence names a field and Apple's rule.
    case invalid([String])
    /// No client for the app and environment (not configured, no issuerId, environment not accepted).
    case unavailable(AppStoreAPIUnavailable)
    /// Apple answered with an error, or could not be reached.
    case api(AppStoreServerAPIError)
    /// Apple did the change but it could not be recorded in the audit log.
    case notRecorded(String)

    public var description: String {
        switch self {
        case .invalid(let problems): problems.joined(separator: "; ")
        case .unavailable(let reason): reason.description
        case .api(let error): error.description
        case .notRecorded(let reason):
            "Apple made the change, but the service could not record it in the audit log (\(reason)); the change stands at Apple"
        }
    }
}
