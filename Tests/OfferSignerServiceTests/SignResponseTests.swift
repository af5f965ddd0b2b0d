import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("The signing answer's JSON")
struct SignResponseTests {
    func issued(_ format: PromotionalOfferFormat, userId: String, timestamp: Int64) -> IssuedOffer {
        IssuedOffer(offer: PromotionalOfferRequest(
            bundleId: "com.example.app", keyIdentifier: "KEY123", productId: "com.example.app.pro_monthly", offerId: "winback",
            appAccountToken: userId, nonce: "0193a8c4-7d2e-7f00-8a00-0123456789ab", timestamp: timestamp),
            format: format, signature: format == .jws ? "eyJhbGciOiJFUzI1NiJ9.e30.c2ln" : "MEUCIQD+/sig==")
    }

    @Test("written directly (issue 38), it is byte for byte the members' object, escapes included, in both formats",
          arguments: [PromotionalOfferFormat.legacy, .jws])
    func sameBytesAsMembers(_ format: PromotionalOfferFormat) throws {
        for (userId, timestamp) in [("user-1", Int64(1_764_633_600_000)), ("a \"quoted\" back\\slash / é 🎁 ユーザー", Int64(0)),
                                  ("tab\there\nline\u{01}\u{7f}", Int64(-1))] {
            let response = SignResponse(issued(format, userId: userId, timestamp: timestamp))
            #expect(response.body == Array(JSONValue.object(response.members).utf8))
            let parsed = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(parsed?["appAccountToken"] as? String == userId)
        }
    }

    @Test("the placement's answer, written directly, is byte for byte the sign answer's members then placement (and experimentId, armId)",
          arguments: [PromotionalOfferFormat.legacy, .jws])
    func placementSameBytesAsMembers(_ format: PromotionalOfferFormat) throws {
        for (placement, experimentId, armId) in [("cancel_flow", nil, nil), ("cancel_flow", "exp_1", "half"),
                                                 ("cancel \"flow\"\n", "exp \"2\"", "arm/é 🎁\u{01}")] as [(String, String?, String?)] {
            let placed = PlacedOffer(issued: issued(format, userId: "user-1", timestamp: 1_764_633_600_000), placementId: placement,
                                     experimentId: experimentId, armId: armId)
            var members = SignResponse(placed.issued).members + [("placement", JSONValue.string(placement))]
            if let experimentId, let armId { members += [("experimentId", .string(experimentId)), ("armId", .string(armId))] }
            #expect(SignResponse(placed.issued).body(placement: placed.placementId, experimentId: placed.experimentId, armId: placed.armId)
                    == Array(JSONValue.object(members).utf8))
        }
    }
}
