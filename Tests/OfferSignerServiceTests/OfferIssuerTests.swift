import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// The signing use case on its own, without HTTP: what it issues, what it logs, and each
/// refusal as a typed value.
@Suite("OfferIssuer")
struct OfferIssuerTests {
    func request(_ userId: String = "User-1", offerId: String = "winback", productId: String = TestEnvironment.product,
                 bundleId: String? = nil, format: PromotionalOfferFormat = .legacy) -> IssueRequest {
        IssueRequest(bundleId: bundleId, productId: productId, offerId: offerId, userId: userId, format: format,
                     transactionId: format == .jws ? "2000000001" : nil, requestedBy: "offline-tool", requestId: "r-1")
    }

    @Test("the issued offer is what was signed and what was logged, field for field")
    func issuedIsLogged() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let issued = try env.issuer.issue(request())
        #expect(issued.offer.appAccountToken == "user-1", "the token is lowercased as Apple signs it")
        #expect(issued.offer.timestamp == 1_800_000_000_000 && issued.offer.keyIdentifier == "ACTIVEKEY1")
        let key = try P256PublicKey(spkiDER: Array(Data(base64Encoded: SignEndpointTests.applePublicKey)!))
        #expect(key.isValidSignature(derSignature: Array(Data(base64Encoded: issued.signature)!), of: issued.offer.legacyPayload))
        let logged = try #require(try env.signatureLog.signature(nonce: issued.offer.nonce))
        #expect(logged.record == SignatureRecord(issued, apiKeyName: "offline-tool", requestId: "r-1", recordedAt: 1_800_000_000_000))
        #expect(issued.expiresAt == Date(timeIntervalSince1970: 1_800_086_400))
    }

    @Test("the JWS format carries the transaction ID and needs the app's issuer ID")
    func jws() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let issued = try env.issuer.issue(request(format: .jws))
        #expect(issued.format == .jws && issued.offer.transactionId == "2000000001")
        #expect(issued.signature.split(separator: ".").count == 3)
    }

    @Test("each refusal is a typed value, and nothing is logged for it")
    func refusals() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true)))
        let issuer = env.issuer
        func refusal(_ request: IssueRequest) -> SignRefusal? {
            do {
                _ = try issuer.issue(request)
                return nil
            } catch {
                return error
            }
        }
        guard case .unknownApp(bundleId: "com.other") = refusal(request(bundleId: "com.other")) else {
            Issue.record("an unknown app is refused as such")
            return
        }
        guard case .offerNotFound(offerId: "nope", bundleId: TestEnvironment.bundleId) = refusal(request(offerId: "nope")) else {
            Issue.record("an unknown offer is refused as such")
            return
        }
        guard case .productNotInOffer(offerId: "winback", productId: "other.product") = refusal(request(productId: "other.product")) else {
            Issue.record("a product outside the offer is refused as such")
            return
        }
        guard case .notEligible(let decision) = refusal(request()) else {
            Issue.record("an unknown user is not eligible for an offer that requires a lapse")
            return
        }
        #expect(!decision.eligible && decision.reasons.map(\.criterion).contains("requireLapsed"))
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 10).isEmpty)
    }

    @Test("the daily quota and an unwritable log refuse with what the caller needs to know")
    func quotaAndLog() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule(limits: OfferLimits(maxSignaturesPerUserPerDay: 1)))
        let issuer = env.issuer
        _ = try issuer.issue(request())
        #expect {
            _ = try issuer.issue(request())
        } throws: { error in
            guard case .quotaExceeded(offerId: "winback", maxCount: 1, let retry) = error as? SignRefusal else { return false }
            return retry > 0
        }
        let failing = try TestEnvironment(signatures: FailingSignatureLog())
        try failing.putOffer(TestEnvironment.demoRule())
        #expect {
            _ = try failing.issuer.issue(request())
        } throws: { error in
            guard case .logUnavailable(reason: "disk I/O error") = error as? SignRefusal else { return false }
            return true
        }
    }
}
