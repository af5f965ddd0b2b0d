/// Which certificate of an `x5c` chain a failure concerns.
public enum CertificatePosition: String, Sendable, Hashable {
    case leaf
    case intermediate
    case root
}

/// Why App Store signed data (a JWS with an `x5c` chain) was refused.
///
/// The ``description`` is written for the `detail` of a 400 `invalid_signed_data` problem
/// document: specific, and free of secrets and of unverified input.
public enum SignedDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not three dot-separated segments.
    case notCompactJWS
    /// The protected header is not base64url JSON of the expected shape.
    case malformedHeader(String)
    /// The header's `alg` is not `ES256`.
    case unsupportedAlgorithm
    /// The header has no `x5c`.
    case missingCertificateChain
    /// `x5c` does not hold exactly three certificates.
    case wrongCertificateCount(Int)
    /// An `x5c` entry is not standard base64 of a DER certificate.
    case malformedCertificate(CertificatePosition)
    /// The payload is not base64url JSON, or its `signedDate` is not an integer.
    case malformedPayload(String)
    /// The leaf and intermediate do not chain to a configured root.
    case untrustedChain
    /// A certificate of the chain had expired at the payload's `signedDate`.
    case certificateExpired(CertificatePosition)
    /// A certificate of the chain was not yet valid at the payload's `signedDate`.
    case certificateNotYetValid(CertificatePosition)
    /// OpenSSL refused the chain for another reason (its text is kept).
    case invalidChain(CertificatePosition, reason: String)
    /// A certificate lacks the Apple extension its place in the chain requires.
    case missingAppleExtension(CertificatePosition, oid: String)
    /// The leaf's public key is not an EC P-256 key, so it cannot verify ES256.
    case unsupportedLeafKey
    /// The signature segment is not a 64-byte R‖S value.
    case malformedSignature
    /// The ES256 signature does not verify under the leaf's key.
    case invalidSignature
    /// The verified payload does not decode as the expected Apple type.
    case undecodablePayload(type: String, reason: String)
    /// A number of the verified payload lies outside the range the service accepts for it
    /// (see `AppStoreValueRanges`), e.g. a date near the 64-bit maximum.
    case valueOutOfRange(field: String, value: Int64, expected: String)
    /// The payload names no app.
    case missingBundleId
    /// The payload's app is not configured.
    case unknownBundleId(String)
    /// Production data for an app configured without an `appAppleId`.
    case appAppleIdNotConfigured(bundleId: String)
    /// Production data whose `appAppleId` differs from the configured one.
    case appAppleIdMismatch(bundleId: String, found: Int64?)
    /// The payload's environment is not accepted.
    case environmentNotAccepted(String?)
    /// Nested signed data names another app than its notification.
    case bundleIdMismatch(expected: String, found: String?)
    /// Nested signed data comes from another environment than its notification.
    case environmentMismatch(expected: String, found: String?)
    /// A nested JWS of a notification (`signedTransactionInfo`, `signedRenewalInfo`) was refused.
    indirect case nested(field: String, SignedDataError)
    /// OpenSSL could not allocate what verification needs.
    case internalFailure(String)

    public var description: String {
        switch self {
        case .notCompactJWS:
            "signed data is not a compact JWS of three dot-separated segments"
        case .malformedHeader(let reason):
            "JWS header \(reason)"
        case .unsupportedAlgorithm:
            "JWS header alg is not ES256"
        case .missingCertificateChain:
            "JWS header has no x5c certificate chain"
        case .wrongCertificateCount(let count):
            "x5c holds \(count) certificate\(count == 1 ? "" : "s"), expected 3 (leaf, intermediate, root)"
        case .malformedCertificate(let position):
            "x5c \(position.rawValue) certificate is not base64 of a DER X.509 certificate"
        case .malformedPayload(let reason):
            "JWS payload \(reason)"
        case .untrustedChain:
            "x5c chain does not lead to a trusted root"
        case .certificateExpired(let position):
            "x5c \(position.rawValue) certificate had expired at the payload's signedDate"
        case .certificateNotYetValid(let position):
            "x5c \(position.rawValue) certificate was not yet valid at the payload's signedDate"
        case .invalidChain(let position, let reason):
            "x5c chain is invalid at the \(position.rawValue) certificate: \(reason)"
        case .missingAppleExtension(let position, let oid):
            "\(position.rawValue) certificate lacks OID \(oid)"
        case .unsupportedLeafKey:
            "leaf certificate key is not an EC P-256 key"
        case .malformedSignature:
            "JWS signature is not a 64-byte ES256 (R‖S) value"
        case .invalidSignature:
            "JWS signature does not verify under the leaf certificate's key"
        case .undecodablePayload(let type, let reason):
            "payload is not a valid \(type): \(reason)"
        case .valueOutOfRange(let field, let value, let expected):
            "payload field '\(field)' is \(value), not \(expected)"
        case .missingBundleId:
            "payload names no bundleId"
        case .unknownBundleId(let bundleId):
            "bundleId '\(bundleId)' is not a configured app"
        case .appAppleIdNotConfigured(let bundleId):
            "no appAppleId is configured for bundleId '\(bundleId)', so its Production data is refused"
        case .appAppleIdMismatch(let bundleId, let found):
            "appAppleId \(found.map(String.init) ?? "(absent)") is not the one configured for bundleId '\(bundleId)'"
        case .environmentNotAccepted(let environment):
            "environment \(environment.map { "'\($0)'" } ?? "(absent)") is not accepted"
        case .bundleIdMismatch(let expected, let found):
            "bundleId \(found.map { "'\($0)'" } ?? "(absent)") differs from the notification's '\(expected)'"
        case .environmentMismatch(let expected, let found):
            "environment \(found.map { "'\($0)'" } ?? "(absent)") differs from the notification's '\(expected)'"
        case .nested(let field, let error):
            "\(field): \(error.description)"
        case .internalFailure(let operation):
            "verification could not run: \(operation)"
        }
    }
}
