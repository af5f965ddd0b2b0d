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

    /// The JSON text, written directly into one buffer of bytes: this is the hot path of the
    /// service. Byte for byte `JSONValue.object(members)` (`SignResponseTests`), without
    /// building the members first, nor a `String` copied into the response afterwards (issue 38).
    var body: [UInt8] {
        var out = JSONBytes(capacity: capacity)
        writeMembers(&out)
        out.raw("}")
        return out.bytes
    }

    /// `POST /v1/offers/placement`'s answer: the sign answer's members then `placement` and,
    /// inside an experiment, `experimentId` and `armId`, written the same way. Byte for byte
    /// `JSONValue.object(members + those)` (`SignResponseTests`): the three names written as
    /// they are (they need no escaping), their values escaped as every string is.
    func body(placement: String, experimentId: String?, armId: String?) -> [UInt8] {
        var out = JSONBytes(capacity: capacity + 40 + placement.utf8.count + (experimentId?.utf8.count ?? 0) + (armId?.utf8.count ?? 0))
        writeMembers(&out)
        out.raw(",\"placement\":")
        out.string(placement)
        if let experimentId, let armId {
            out.raw(",\"experimentId\":")
            out.string(experimentId)
            out.raw(",\"armId\":")
            out.string(armId)
        }
        out.raw("}")
        return out.bytes
    }

    /// Room for the contract's members.
    private var capacity: Int {
        let offer = issued.offer
        return 320 + issued.signature.utf8.count + offer.appAccountToken.utf8.count + offer.bundleId.utf8.count
            + offer.productId.utf8.count + offer.offerId.utf8.count
    }

    /// The contract's members, from the opening brace, without the closing one.
    private func writeMembers(_ out: inout JSONBytes) {
        let offer = issued.offer
        out.raw("{\"format\":")
        out.string(issued.format.rawValue)
        out.raw(",\"bundleId\":")
        out.string(offer.bundleId)
        out.raw(",\"productId\":")
        out.string(offer.productId)
        out.raw(",\"offerId\":")
        out.string(offer.offerId)
        out.raw(",\"appAccountToken\":")
        out.string(offer.appAccountToken)
        out.raw(",\"keyIdentifier\":")
        out.string(offer.keyIdentifier)
        out.raw(",\"nonce\":")
        out.string(offer.nonce)
        switch issued.format {
        case .legacy:
            out.raw(",\"timestamp\":")
            out.int(Int(offer.timestamp))
            out.raw(",\"signature\":")
        case .jws:
            out.raw(",\"jws\":")
        }
        out.string(issued.signature)
        out.raw(",\"expiresAt\":")
        out.string(rfc3339: issued.expiresAt)
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
