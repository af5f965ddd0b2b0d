import Foundation
import Testing
@testable import OfferSignerCore

/// Matching a redemption to the signature that explains it.
@Suite struct RedemptionMatcherTests {
    static let redeemedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = "6f1c2a34-0000-4000-8000-000000000001"

    static func redemption(_ id: String = "r1", at date: Date = redeemedAt, token: String? = token,
                           original: String = "1000") -> RedemptionMatcher.Redemption {
        RedemptionMatcher.Redemption(id: id, bundleId: "com.example.app", offerId: "winback", appAccountToken: token,
                                     originalTransactionId: original, purchaseDate: date)
    }

    static func signature(_ nonce: String, secondsBefore: TimeInterval, user: String = token, transaction: String? = nil,
                          offerId: String = "winback", bundleId: String = "com.example.app") -> RedemptionMatcher.Signature {
        RedemptionMatcher.Signature(nonce: nonce, bundleId: bundleId, offerId: offerId, userId: user, transactionId: transaction,
                                    timestamp: redeemedAt.addingTimeInterval(-secondsBefore))
    }

    @Test func aSignatureWithin24HoursBeforeMatches() {
        #expect(RedemptionMatcher.match([Self.redemption()], signatures: [Self.signature("n1", secondsBefore: 86_400)]) == ["r1": "n1"])
        #expect(RedemptionMatcher.match([Self.redemption()], signatures: [Self.signature("n1", secondsBefore: 0)]) == ["r1": "n1"])
    }

    @Test func aSignatureOlderThan24HoursOrAfterTheRedemptionDoesNot() {
        #expect(RedemptionMatcher.match([Self.redemption()], signatures: [Self.signature("n1", secondsBefore: 86_401)]).isEmpty)
        #expect(RedemptionMatcher.match([Self.redemption()], signatures: [Self.signature("n1", secondsBefore: -1)]).isEmpty)
    }

    @Test func anotherCustomerOfferOrAppDoesNotMatch() {
        let others = [
            Self.signature("user", secondsBefore: 60, user: "someone-else"),
            Self.signature("offer", secondsBefore: 60, offerId: "other"),
            Self.signature("app", secondsBefore: 60, bundleId: "com.example.other"),
        ]
        #expect(RedemptionMatcher.match([Self.redemption()], signatures: others).isEmpty)
    }

    @Test func theProvenOriginalTransactionMatchesACustomerWithoutAToken() {
        let proven = Self.signature("n1", secondsBefore: 60, user: "", transaction: "1000")
        #expect(RedemptionMatcher.match([Self.redemption(token: nil)], signatures: [proven]) == ["r1": "n1"])
        let otherSubscription = Self.signature("n2", secondsBefore: 60, user: "", transaction: "2000")
        #expect(RedemptionMatcher.match([Self.redemption(token: nil)], signatures: [otherSubscription]).isEmpty)
    }

    @Test func oneSignatureExplainsOneRedemption() {
        let two = [Self.redemption("r1", at: Self.redeemedAt), Self.redemption("r2", at: Self.redeemedAt.addingTimeInterval(60), original: "2000")]
        let one = [Self.signature("n1", secondsBefore: 600)]
        #expect(RedemptionMatcher.match(two, signatures: one) == ["r1": "n1"])
        #expect(RedemptionMatcher.match(two, signatures: one + [Self.signature("n2", secondsBefore: 30)]) == ["r1": "n1", "r2": "n2"])
        #expect(RedemptionMatcher.match(two, signatures: one, used: ["n1"]).isEmpty)
    }
}
