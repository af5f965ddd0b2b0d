import Foundation
import OfferSignerApplication
import OfferSignerCore

/// The body of a successful `POST /v1/offers/sign`, in the contract's field order, made from
/// the issued offer so it says exactly what was signed and logged.
struct SignResponse {
    let issued: IssuedOffer

    init(_ issued: IssuedOffer) {
        self.issued = issued
    }

    /// The JSON text, written directly: this is the hot path of the service.
    var json: String { JSONValue.object(members) }

    /// The answer's members in the contract's order.
    var members: [(String, JSONValue)] {
        let offer = issued.offer
        var members: [(String, JSONValue)] = [
            ("format", .string(issued.format.rawValue)), ("bundleId", .string(offer.bundleId)),
            ("productId", .string(offer.productId)), ("offerId", .string(offer.offerId)),
            ("appAccountToken", .string(offer.appAccountToken)), ("keyIdentifier", .string(offer.keyIdentifier)),
            ("nonce", .string(offer.nonce)),
        ]
        switch issued.format {
        case .legacy: members += [("timestamp", .int(Int(offer.timestamp))), ("signature", .string(issued.signature))]
        case .jws: members.append(("jws", .string(issued.signature)))
        }
        members.append(("expiresAt", .string(RFC3339.string(from: issued.expiresAt))))
        return members
    }
}
