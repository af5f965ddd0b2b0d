import OfferSignerCore

/// Why signed data from an App Store Server API response was refused.
public enum AppStoreServerAPIVerificationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The verifier refused the item (chain, OIDs, signature, app, environment, payload).
    case refused(item: String, SignedDataError)
    /// The verified item names another app or environment than the response that carried it.
    case sourceMismatch(item: String, field: String, expected: String, found: String?)

    public var description: String {
        switch self {
        case .refused(let item, let error):
            "\(item): \(error.description)"
        case .sourceMismatch(let item, let field, let expected, let found):
            "\(item): \(field) \(found.map { "'\($0)'" } ?? "(absent)") differs from the response's '\(expected)'"
        }
    }
}
