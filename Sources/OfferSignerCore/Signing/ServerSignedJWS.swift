import Foundation

/// A compact JWS this service signs with an app's In-App Purchase key (a promotional offer
/// or an introductory-offer eligibility), split and decoded for an audit: which app, key and
/// nonce it names, and whether it verifies under a given public key. Nothing is trusted
/// until ``isValid(under:)`` says so.
public struct ServerSignedJWS: Sendable {
    /// The header members a signed offer carries.
    public struct Header: Decodable, Sendable {
        public let alg: String
        /// The key identifier (App Store Connect key ID).
        public let kid: String
        public let typ: String?
    }

    /// The claims the audit reads; the others are kept in the signed bytes.
    public struct Claims: Decodable, Sendable {
        public let iss: String?
        public let iat: Int64?
        /// `promotional-offer` or `introductory-offer-eligibility`.
        public let aud: String
        public let bid: String
        public let nonce: String
        public let productId: String?
        public let offerIdentifier: String?
        public let transactionId: String?
        public let allowIntroductoryOffer: Bool?
    }

    public let header: Header
    public let claims: Claims
    /// `header.payload` exactly as given: the bytes the signature covers.
    public let signingInput: [UInt8]
    /// The 64-byte R‖S signature (any other length never verifies).
    public let signature: [UInt8]

    /// Splits and decodes `text`; nil when it is not a compact JWS whose header and claims
    /// have the members above.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2,
              let headerData = Base64URL.decode(utf8: bytes[..<dots[0]]),
              let claimsData = Base64URL.decode(utf8: bytes[(dots[0] + 1)..<dots[1]]),
              let signature = Base64URL.decode(utf8: bytes[(dots[1] + 1)...]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData),
              let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else { return nil }
        self.header = header
        self.claims = claims
        self.signingInput = Array(bytes[..<dots[1]])
        self.signature = Array(signature)
    }

    /// The format of the log that this JWS would be: by its audience.
    public var format: SignatureFormat? {
        switch claims.aud {
        case "promotional-offer": .jws
        case IntroductoryOfferEligibility.audience: .introductoryOfferEligibility
        default: nil
        }
    }

    /// Whether the header says ES256 and the signature verifies under `key`.
    public func isValid(under key: P256PublicKey) -> Bool {
        header.alg == "ES256" && signature.count == 64 && key.isValidSignature(rawSignature: signature, of: signingInput)
    }
}
