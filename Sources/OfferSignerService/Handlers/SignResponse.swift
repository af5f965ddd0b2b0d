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

    /// The JSON text, written directly into one buffer: this is the hot path of the service.
    /// Byte for byte `JSONValue.object(members)` (`SignResponseTests`), without building the
    /// members first (issue 38).
    var json: String { json(then: []) }

    /// The JSON text with `extra` string members after the contract's, written the same way:
    /// `POST /v1/offers/placement`'s answer (`placement`, and inside an experiment
    /// `experimentId` and `armId`). Byte for byte `JSONValue.object(members + extra)`
    /// (`SignResponseTests`); the keys need no escaping.
    func json(then extra: [(String, String)]) -> String {
        let offer = issued.offer
        var out = "{\"format\":"
        out.reserveCapacity(320 + issued.signature.utf8.count + offer.appAccountToken.utf8.count + offer.bundleId.utf8.count
                            + offer.productId.utf8.count + offer.offerId.utf8.count
                            + extra.reduce(0) { $0 + 8 + $1.0.utf8.count + $1.1.utf8.count })
        JSONValue.write(string: issued.format.rawValue, to: &out)
        Self.append("bundleId", offer.bundleId, to: &out)
        Self.append("productId", offer.productId, to: &out)
        Self.append("offerId", offer.offerId, to: &out)
        Self.append("appAccountToken", offer.appAccountToken, to: &out)
        Self.append("keyIdentifier", offer.keyIdentifier, to: &out)
        Self.append("nonce", offer.nonce, to: &out)
        switch issued.format {
        case .legacy:
            out += ",\"timestamp\":"
            out += String(Int(offer.timestamp))
            Self.append("signature", issued.signature, to: &out)
        case .jws:
            Self.append("jws", issued.signature, to: &out)
        }
        Self.append("expiresAt", RFC3339.string(from: issued.expiresAt), to: &out)
        for (key, value) in extra { Self.append(key, value, to: &out) }
        out += "}"
        return out
    }

    /// Appends `,"key":"value"` (`key` needs no escaping).
    private static func append(_ key: String, _ value: String, to out: inout String) {
        out += ",\""
        out += key
        out += "\":"
        JSONValue.write(string: value, to: &out)
    }

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
