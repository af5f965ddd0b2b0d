/// Apple's `VerificationResult<SignedType>`: its two cases and `jwsRepresentation`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum VerificationResult<SignedType: Sendable>: Sendable {
    /// Apple's `VerificationResult.VerificationError` (its documented cases).
    public enum VerificationError: Error, Sendable {
        /// Apple's documented reasons a signed value does not verify.
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding, invalidSignature,
             missingRequiredProperties
    }

    /// The signed value did not verify.
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    /// The signed value verified.
    case verified(SignedType)

    /// `var jwsRepresentation: String { get }`
    public var jwsRepresentation: String {
        switch self {
        case .verified(let value), .unverified(let value, _):
            (value as? any SignedByTestDouble)?.jws ?? ""
        }
    }
}

/// A value of the double that carries its own JWS (its `jwsRepresentation`).
protocol SignedByTestDouble {
    var jws: String { get }
}
