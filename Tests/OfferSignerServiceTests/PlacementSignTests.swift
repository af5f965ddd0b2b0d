import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// `POST /v1/offers/placement`: the service picks the placement's offer and signs it.
@Suite("POST /v1/offers/placement")
struct PlacementSignTests {
    static let product = TestEnvironment.product

    /// An environment with offers `lapsed_only` (requires a lapsed subscription: an unknown
    /// user fails it), `other_product` (for another product) and `anyone`, and the placement
    /// `cancel_flow` listing them in that order.
    static func environment(offerIds: [String] = ["lapsed_only", "other_product", "anyone"]) throws -> TestEnvironment {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule("lapsed_only", eligibility: EligibilityCriteria(requireLapsed: true)))
        var other = TestEnvironment.demoRule("other_product")
        other.productIds = ["com.example.app.pro_yearly"]
        try env.putOffer(other)
        try env.putOffer(TestEnvironment.demoRule("anyone"))
        let offers = offerIds.map { "\"\($0)\"" }.joined(separator: ", ")
        let created = env.send("PUT", "/v1/admin/placements/cancel_flow", role: .marketing, json: #"{"offerIds": [\#(offers)]}"#)
        #expect(created.status == 201, "\(created.text)")
        return env
    }

    static func ask(_ env: TestEnvironment, placement: String = "cancel_flow", user: String = "user-1", format: String = "legacy") -> TestResponse {
        env.send("POST", "/v1/offers/placement", json: """
            {"placement": "\(placement)", "productId": "\(product)", "userId": "\(user)", "format": "\(format)"}
            """)
    }

    @Test("the first offer the user is eligible for is signed: the sign answer with placement, its signature verifies, its record is logged")
    func firstEligibleOffer() throws {
        let env = try Self.environment()
        let response = Self.ask(env)
        #expect(response.status == 200, "\(response.text)")
        let body = response.json
        #expect(body["placement"] as? String == "cancel_flow")
        #expect(body["offerId"] as? String == "anyone", "lapsed_only fails, other_product is for another product")
        #expect(Set(body.keys) == ["format", "bundleId", "productId", "offerId", "appAccountToken", "keyIdentifier", "nonce",
                                   "timestamp", "signature", "expiresAt", "placement"])
        let nonce = try #require(body["nonce"] as? String)
        let timestamp = try #require((body["timestamp"] as? NSNumber)?.int64Value)
        let payload = [TestEnvironment.bundleId, "ACTIVEKEY1", Self.product, "anyone", "user-1", nonce, String(timestamp)]
            .joined(separator: "\u{2063}")
        let signatureText = try #require(body["signature"] as? String)
        let signature = try #require(Data(base64Encoded: signatureText))
        let key = try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
        #expect(key.isValidSignature(derSignature: Array(signature), of: Array(payload.utf8)))
        let logged = try #require(try env.signatureLog.signature(nonce: nonce))
        #expect(logged.record.offerId == "anyone" && logged.record.userId == "user-1")
        #expect(try env.signatureLog.verifyIntegrity().records == 1, "one offer signed, one record")
    }

    @Test("the placement's order decides: with the eligible offer first, it is the one signed")
    func orderIsPriority() throws {
        let env = try Self.environment(offerIds: ["anyone", "lapsed_only"])
        #expect(Self.ask(env).json["offerId"] as? String == "anyone")
        let jws = Self.ask(env, format: "jws")
        #expect(jws.status == 200 && jws.json["jws"] is String && jws.json["placement"] as? String == "cancel_flow")
    }

    @Test("eligible for none: 403 not_eligible with every offer's reasons in the placement's order, nothing signed")
    func noneEligible() throws {
        let env = try Self.environment(offerIds: ["lapsed_only", "other_product"])
        let response = Self.ask(env)
        #expect(response.status == 403 && response.code == "not_eligible", "\(response.text)")
        let offers = try #require(response.json["offers"] as? [[String: Any]])
        #expect(offers.map { $0["offerId"] as? String } == ["lapsed_only", "other_product"])
        #expect((offers[0]["reasons"] as? [[String: Any]])?.map { $0["criterion"] as? String } == ["requireLapsed"])
        #expect((offers[1]["reasons"] as? [[String: Any]])?.map { $0["criterion"] as? String } == ["productIds"])
        #expect(response.json["placement"] as? String == "cancel_flow")
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("an unknown or disabled placement is 404 placement_not_found; an invalid body is 400 with the field named")
    func refusals() throws {
        let env = try Self.environment()
        let unknown = Self.ask(env, placement: "nowhere")
        #expect(unknown.status == 404 && unknown.code == "placement_not_found", "\(unknown.text)")
        #expect(env.send("DELETE", "/v1/admin/placements/cancel_flow", role: .marketing).status == 200)
        #expect(Self.ask(env).code == "placement_not_found", "a disabled placement signs nothing")
        let missing = env.send("POST", "/v1/offers/placement", json: #"{"productId": "p", "userId": "u"}"#)
        #expect(missing.status == 400 && missing.text.contains("placement"))
        let slash = env.send("POST", "/v1/offers/placement", json: #"{"placement": "a/b", "productId": "p", "userId": "u"}"#)
        #expect(slash.status == 400 && slash.text.contains("'placement'"))
        let offerId = env.send("POST", "/v1/offers/placement", json: #"{"placement": "cancel_flow", "offerId": "anyone", "productId": "p", "userId": "u"}"#)
        #expect(offerId.status == 400 && offerId.text.contains("offerId"), "a placement request names no offer")
        #expect(env.send("POST", "/v1/offers/placement", role: .marketing, json: #"{"placement": "cancel_flow", "productId": "p", "userId": "u"}"#).status == 403)
        #expect(try env.signatureLog.verifyIntegrity().records == 0)
    }

    @Test("a user held out of the offer chosen gets none: the holdout is not passed over to the next offer")
    func holdoutIsKept() throws {
        let env = try TestEnvironment()
        var held = TestEnvironment.demoRule("held")
        held.holdoutPercent = 50
        try env.putOffer(held)
        try env.putOffer(TestEnvironment.demoRule("anyone"))
        #expect(env.send("PUT", "/v1/admin/placements/p", role: .marketing, json: #"{"offerIds": ["held", "anyone"]}"#).status == 201)
        let users = (0..<200).map { "user-\($0)" }
        let heldOut = try #require(users.first { OfferHoldout.isHeldOut(bundleId: TestEnvironment.bundleId, offerId: "held", user: $0, percent: 50) })
        let treated = try #require(users.first { !OfferHoldout.isHeldOut(bundleId: TestEnvironment.bundleId, offerId: "held", user: $0, percent: 50) })
        let refused = Self.ask(env, placement: "p", user: heldOut)
        #expect(refused.status == 403 && refused.code == "not_eligible")
        #expect((refused.json["reasons"] as? [[String: Any]])?.map { $0["criterion"] as? String } == ["holdout"], "\(refused.text)")
        #expect(Self.ask(env, placement: "p", user: treated).json["offerId"] as? String == "held")
        #expect(try env.signatureLog.verifyIntegrity().records == 1)
    }
}
