import AppStoreServerAPIMock
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import OfferSignerClient
import OfferSignerCore
import Testing

/// The client against a real `serve` on a real socket: both signature formats verified with
/// the key the service publishes, introductory-offer eligibility, the customer's offers, and
/// every documented refusal as its typed error.
@Suite("OfferSignerClient against a real serve", .serialized)
struct OfferSignerClientTests {
    static let user = "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"
    static let otherUser = "0b7c8e2a-41d6-4f0e-9a51-6c3e2f1d0a99"
    static let product = SignerService.product

    static func client(_ service: SignerService, token: String = SignerService.clientToken,
                       retryPolicy: RetryPolicy = .default) -> OfferSignerClient {
        OfferSignerClient(baseURL: service.baseURL, apiKey: token, session: URLSession(configuration: .ephemeral),
                          retryPolicy: retryPolicy)
    }

    /// The error `call` throws (an issue is recorded when it succeeds).
    static func refusal<T>(_ call: () async throws(OfferSignerError) -> T) async -> OfferSignerError? {
        do {
            _ = try await call()
            Issue.record("expected a refusal")
            return nil
        } catch {
            return error
        }
    }

    @Test("a legacy signature: typed fields, and the signature verifies with the key's public key from GET /v1/keys")
    func legacySignature() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        let offer = try await Self.client(service).promotionalOffer(productID: Self.product, offerID: "winback",
                                                                     userID: Self.user.uppercased())
        #expect(offer.bundleID == SignerService.bundleId && offer.productID == Self.product && offer.offerID == "winback")
        #expect(offer.appAccountToken == Self.user && offer.keyID == "CLIENTKEY1")
        guard case .legacy(let signature, let timestamp) = offer.signature else {
            Issue.record("not a legacy signature: \(offer.signature)")
            return
        }
        #expect(!signature.isEmpty)
        #expect(abs(offer.expiresAt.timeIntervalSince1970 * 1000 - (Double(timestamp) + 86_400_000)) < 1000) // RFC 3339 in whole seconds
        #expect(SignatureCheck.legacyIsValid(offer, key: try service.publicKey(offer.keyID)))
    }

    @Test("a JWS promotional offer: the compact JWS verifies with the key's public key and carries the offer's claims")
    func jwsSignature() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        let offer = try await Self.client(service).promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user,
                                                                     format: .jws, transactionID: "2000000000000042")
        guard case .jws(let jws) = offer.signature else {
            Issue.record("not a JWS: \(offer.signature)")
            return
        }
        #expect(SignatureCheck.jwsIsValid(jws, key: try service.publicKey(offer.keyID), keyID: offer.keyID))
        let claims = AppStoreData.claims(jws)
        #expect(claims["aud"] as? String == "promotional-offer" && claims["offerIdentifier"] as? String == "winback")
        #expect(claims["productId"] as? String == Self.product && claims["bid"] as? String == SignerService.bundleId)
        #expect(claims["nonce"] as? String == offer.nonce.uuidString.lowercased())
        #expect(claims["transactionId"] as? String == "2000000000000042")
    }

    @Test("a key shipped in apps signs with the customer's proof; the JWS is bound to the proven subscription")
    func signedWithProof() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        let transaction = AppStoreData.transaction(id: "2000000000000101", original: "2000000000000100", user: Self.user,
                                                   purchasedDaysAgo: 10)
        let proof = CustomerProof(signedTransaction: transaction, signedAppTransaction: AppStoreData.appTransaction(appTransactionId: "704289572911"))
        let offer = try await Self.client(service, token: SignerService.appToken)
            .promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user, proof: proof, format: .jws)
        guard case .jws(let jws) = offer.signature else {
            Issue.record("not a JWS")
            return
        }
        #expect(AppStoreData.claims(jws)["transactionId"] as? String == "2000000000000100")
        #expect(SignatureCheck.jwsIsValid(jws, key: try service.publicKey(offer.keyID), keyID: offer.keyID))
    }

    @Test("the proof's deviceVerificationID is sent as deviceVerificationId: the service checks it against the transaction's deviceVerification")
    func deviceVerificationSent() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        // base64(SHA-384(nonce + device)), lowercased UUID strings, computed with Python's hashlib.
        let transaction = AppStoreData.transaction(id: "2000000000000111", original: "2000000000000110", user: nil, purchasedDaysAgo: 10,
                                                   extra: ["deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
                                                           "deviceVerification": "QVQkuNGBiS5k+bxHy8Nqf7V7t+Q113LhUYg+11Vyys8adt8NxubRz+V+i18ZDTV7"])
        let client = Self.client(service, token: SignerService.appToken)
        let ownDevice = CustomerProof(signedTransaction: transaction,
                                      deviceVerificationID: UUID(uuidString: "6A1C0E2B-4D3F-4B5A-9C8D-7E6F5A4B3C2D")!)
        _ = try await client.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user, proof: ownDevice)
        let otherDevice = CustomerProof(signedTransaction: transaction,
                                        deviceVerificationID: UUID(uuidString: "11111111-2222-4333-8444-555555555555")!)
        let refused = await Self.refusal { () async throws(OfferSignerError) in
            try await client.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user, proof: otherDevice)
        }
        #expect(refused.map { if case .proofMismatch(let detail) = $0 { detail.contains("deviceVerificationId") } else { false } } == true,
                "\(String(describing: refused))")
        let introRefused = await Self.refusal { () async throws(OfferSignerError) in
            try await client.introductoryOfferEligibility(productID: Self.product, userID: Self.user, transactionID: "2000000000000110",
                                                      proof: otherDevice)
        }
        #expect(introRefused.map { if case .proofMismatch = $0 { true } else { false } } == true, "\(String(describing: introRefused))")
    }

    @Test("introductory-offer eligibility: allowed for a new customer, withheld with the reason after one, both signed; several products at once")
    func introductoryEligibility() async throws {
        let service = try SignerService()
        let client = Self.client(service)
        let allowed = try await client.introductoryOfferEligibility(productID: Self.product, userID: Self.user,
                                                                    transactionID: "2000000000000200")
        #expect(allowed.allowIntroductoryOffer && allowed.reasons.isEmpty && allowed.productID == Self.product)
        #expect(SignatureCheck.jwsIsValid(allowed.compactJWS, key: try service.publicKey(allowed.keyID), keyID: allowed.keyID))
        let claims = AppStoreData.claims(allowed.compactJWS)
        #expect(claims["aud"] as? String == "introductory-offer-eligibility" && claims["allowIntroductoryOffer"] as? Bool == true)
        #expect(claims["nonce"] as? String == allowed.nonce.uuidString.lowercased())

        try service.notify(AppStoreData.notification("SUBSCRIBED", transaction: AppStoreData.transaction(
            id: "2000000000000300", user: Self.otherUser, purchasedDaysAgo: 100, days: 7, extra: ["offerType": 1])))
        let withheld = try await client.introductoryOfferEligibility(productID: Self.product, userID: Self.otherUser,
                                                                     transactionID: "2000000000000300")
        #expect(!withheld.allowIntroductoryOffer)
        #expect(withheld.reasons.map(\.criterion) == ["introductoryOfferRedeemed"])
        #expect(AppStoreData.claims(withheld.compactJWS)["allowIntroductoryOffer"] as? Bool == false)
        #expect(SignatureCheck.jwsIsValid(withheld.compactJWS, key: try service.publicKey(withheld.keyID), keyID: withheld.keyID))

        let yearly = "com.example.app.pro_yearly"
        let several = try await client.introductoryOfferEligibility(productIDs: [Self.product, yearly], userID: Self.otherUser,
                                                                    transactionID: "2000000000000300")
        #expect(Set(several.keys) == [Self.product, yearly])
        #expect(several[Self.product]?.allowIntroductoryOffer == false)
        #expect(AppStoreData.claims(several[yearly]?.compactJWS ?? "")["productId"] as? String == yearly)

        // A store page in one request: answers in order, each signed; a product the service does not know fails it.
        let page = try await client.introductoryOfferEligibility(storePage: [Self.product], userID: Self.otherUser,
                                                                 transactionID: "2000000000000300")
        #expect(page.map(\.productID) == [Self.product] && page[0].allowIntroductoryOffer == false)
        #expect(SignatureCheck.jwsIsValid(page[0].compactJWS, key: try service.publicKey(page[0].keyID), keyID: page[0].keyID))
        #expect(await Self.refusal { () async throws(OfferSignerError) in
            _ = try await client.introductoryOfferEligibility(storePage: [Self.product, yearly], userID: Self.otherUser,
                                                              transactionID: "2000000000000300")
        }.map { if case .notFound(let detail) = $0 { detail.contains(yearly) } else { false } } == true)

        let proof = CustomerProof(signedTransaction: AppStoreData.transaction(id: "2000000000000301", original: "2000000000000300",
                                                                              user: Self.otherUser, purchasedDaysAgo: 5),
                                  transactionID: "2000000000000300")
        let fromProof = try await Self.client(service, token: SignerService.appToken)
            .introductoryOfferEligibility(productID: Self.product, userID: Self.otherUser, proof: proof)
        #expect(!fromProof.allowIntroductoryOffer)
        #expect(await Self.refusal { () async throws(OfferSignerError) in
            try await client.introductoryOfferEligibility(productID: Self.product, userID: Self.user)
        }.map { if case .invalidRequest = $0 { true } else { false } } == true)
    }

    @Test("the customer's offers for a paywall: each with eligible and the reasons, best priority first")
    func customerOffers() async throws {
        let service = try SignerService()
        try service.putOffer("winback_lapsed", priority: 10, eligibility: ["requireLapsed": true])
        try service.putOffer("everyone", priority: 5)
        let offers = try await Self.client(service).offers(userID: Self.user.uppercased(), productID: Self.product)
        #expect(offers.userID == Self.user && offers.environment == .production)
        #expect(offers.offers.map(\.offerID) == ["winback_lapsed", "everyone"])
        #expect(offers.offers.first?.eligible == false && offers.offers.first?.reasons.map(\.criterion) == ["requireLapsed"])
        #expect(offers.offers.first?.reasons.first?.required == .bool(true))
        #expect(offers.eligibleOffers.map(\.offerID) == ["everyone"] && offers.offers.last?.productIDs == [Self.product])
    }

    @Test("the offer of a placement: the first offer the customer is eligible for, signed and verifiable; none eligible is notEligible with every offer's reasons; an unknown placement is notFound")
    func placementOffer() async throws {
        let service = try SignerService()
        try service.putOffer("lapsed_only", eligibility: ["requireLapsed": true])
        try service.putOffer("winback")
        try service.putPlacement("cancel_flow", offerIds: ["lapsed_only", "winback"])
        let placed = try await Self.client(service).offer(forPlacement: "cancel_flow", productID: Self.product, userID: Self.user)
        #expect(placed.placement == "cancel_flow" && placed.offer.offerID == "winback")
        #expect(SignatureCheck.legacyIsValid(placed.offer, key: try service.publicKey(placed.offer.keyID)))

        try service.putPlacement("lapsed_only_flow", offerIds: ["lapsed_only"])
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service).offer(forPlacement: "lapsed_only_flow", productID: Self.product, userID: Self.user)
        }
        guard case .notEligible(let reasons, _)? = error else {
            Issue.record("not notEligible: \(String(describing: error))")
            return
        }
        #expect(reasons.map(\.criterion) == ["requireLapsed"])
        let unknown = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service).offer(forPlacement: "nowhere", productID: Self.product, userID: Self.user)
        }
        guard case .notFound(let detail)? = unknown else {
            Issue.record("not notFound: \(String(describing: unknown))")
            return
        }
        #expect(detail.contains("nowhere"))
    }

    @Test("inside an experiment the placement's offer is the customer's arm's, named with the experiment; a no-offer arm is experimentControl")
    func placementExperiment() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        try service.putOffer("half")
        try service.putPlacement("cancel_flow", offerIds: ["winback"])
        try service.startExperiment("exp1", placement: "cancel_flow", arms: [("control", nil, 0), ("half", "half", 1)])
        let placed = try await Self.client(service).offer(forPlacement: "cancel_flow", productID: Self.product, userID: Self.user)
        #expect(placed.placement == "cancel_flow" && placed.offer.offerID == "half")
        #expect(placed.experimentID == "exp1" && placed.armID == "half")
        #expect(SignatureCheck.legacyIsValid(placed.offer, key: try service.publicKey(placed.offer.keyID)))

        try service.putPlacement("paywall", offerIds: ["winback"])
        try service.startExperiment("exp2", placement: "paywall", arms: [("control", nil, 1), ("half", "half", 0)])
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service).offer(forPlacement: "paywall", productID: Self.product, userID: Self.user)
        }
        guard case .experimentControl(let experimentID, let armID, _)? = error else {
            Issue.record("not experimentControl: \(String(describing: error))")
            return
        }
        #expect(experimentID == "exp2" && armID == "control")
    }

    @Test("403 not_eligible is notEligible with every failed criterion")
    func notEligible() async throws {
        let service = try SignerService()
        try service.putOffer("winback", eligibility: ["requireLapsed": true, "minPaidDays": 30])
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service).promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        guard case .notEligible(let reasons, let detail)? = error else {
            Issue.record("not notEligible: \(String(describing: error))")
            return
        }
        #expect(reasons.map(\.criterion) == ["requireLapsed", "minPaidDays"] && !detail.isEmpty)
        #expect(reasons.last?.required == .number(30) && reasons.last?.actual == .number(0))
    }

    @Test("proof refusals: proof_required, proof_mismatch and invalid_signed_data, each its own error")
    func proofRefusals() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        let app = Self.client(service, token: SignerService.appToken)
        let required = await Self.refusal { () async throws(OfferSignerError) in
            try await app.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        #expect(required.map { if case .proofRequired(let detail) = $0 { detail.contains("signedTransaction") } else { false } } == true)

        let othersTransaction = AppStoreData.transaction(id: "2000000000000400", user: Self.otherUser, purchasedDaysAgo: 10)
        let mismatch = await Self.refusal { () async throws(OfferSignerError) in
            try await app.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user,
                                           proof: CustomerProof(signedTransaction: othersTransaction))
        }
        #expect(mismatch.map { if case .proofMismatch(let detail) = $0 { !detail.isEmpty } else { false } } == true)

        var forged = AppStoreData.claims(othersTransaction)
        forged["appAccountToken"] = Self.user
        let notApple = TestSignedData.sign(forged, key: try P256PrivateKey.generate())
        let invalid = await Self.refusal { () async throws(OfferSignerError) in
            try await app.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user,
                                           proof: CustomerProof(signedTransaction: notApple))
        }
        #expect(invalid.map { if case .invalidSignedData(let detail) = $0 { detail.contains("signedTransaction") } else { false } } == true)
    }

    @Test("403 consent_rescinded after RESCIND_CONSENT for the customer's app download")
    func consentRescinded() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        try service.notify(AppStoreData.notification("SUBSCRIBED", transaction: AppStoreData.transaction(
            id: "2000000000000500", user: Self.user, purchasedDaysAgo: 100, extra: ["appTransactionId": "704289572911"])))
        try service.notify(AppStoreData.rescindConsent(appTransactionId: "704289572911"))
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service).promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        #expect(error.map { if case .consentRescinded(let detail) = $0 { detail.contains("704289572911") } else { false } } == true)
    }

    @Test("429 rate_limited carries the Retry-After seconds, and is not retried")
    func rateLimited() async throws {
        let service = try SignerService()
        try service.putOffer("winback", limits: ["maxSignaturesPerUserPerDay": 1])
        let client = Self.client(service)
        _ = try await client.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await client.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        guard case .rateLimited(let retryAfter?, let detail)? = error else {
            Issue.record("not rateLimited with a Retry-After: \(String(describing: error))")
            return
        }
        #expect(retryAfter > 0 && retryAfter <= 86_400 && detail.contains("winback"))
    }

    @Test("invalid_request with the detail, not_found, unauthorized and forbidden")
    func requestRefusals() async throws {
        let service = try SignerService()
        try service.putOffer("winback")
        let client = Self.client(service)
        let invalid = await Self.refusal { () async throws(OfferSignerError) in
            try await client.promotionalOffer(productID: "", offerID: "winback", userID: Self.user)
        }
        #expect(invalid.map { if case .invalidRequest(let detail) = $0 { detail.contains("productId") } else { false } } == true)
        let notFound = await Self.refusal { () async throws(OfferSignerError) in
            try await client.promotionalOffer(productID: Self.product, offerID: "no_such_offer", userID: Self.user)
        }
        #expect(notFound.map { if case .notFound(let detail) = $0 { detail.contains("no_such_offer") } else { false } } == true)
        let unauthorized = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service, token: "not-a-token").offers(userID: Self.user)
        }
        #expect(unauthorized.map { if case .unauthorized = $0 { true } else { false } } == true)
        let forbidden = await Self.refusal { () async throws(OfferSignerError) in
            try await Self.client(service, token: SignerService.marketingToken)
                .promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        #expect(forbidden.map { if case .forbidden = $0 { true } else { false } } == true)
        let oddUser = try await client.offers(userID: "a b?c#d%e")
        #expect(oddUser.userID == "a b?c#d%e")
    }

    @Test("no service listening is a transport error, not retried")
    func transport() async throws {
        let port = RawHTTP.freePort()
        let attempts = Counter()
        let client = OfferSignerClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: "token",
                                       session: URLSession(configuration: .ephemeral), retryPolicy: .default,
                                       random: { attempts.increment(); return 0 })
        let error = await Self.refusal { () async throws(OfferSignerError) in
            try await client.promotionalOffer(productID: Self.product, offerID: "winback", userID: Self.user)
        }
        #expect(error.map { if case .transport = $0 { true } else { false } } == true)
        #expect(attempts.value == 0)
    }
}
