import Foundation
import OfferSignerClientOnStoreKitDouble
@testable import StoreKit
import Testing

/// The client's StoreKit glue, compiled from its own sources against the StoreKit test double
/// (Linux has no StoreKit): the purchase options each answer becomes, and the proof it reads.
@Suite("OfferSignerClient's StoreKit glue", .serialized)
struct StoreKitGlueTests {
    static let user = UUID(uuidString: "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e")!
    static let nonce = UUID(uuidString: "0190f3a2-7c1e-7d4b-8a2f-3e9c1d5b7a60")!

    static func offer(_ signature: SignedPromotionalOffer.Signature, token: String = user.uuidString.lowercased()) -> SignedPromotionalOffer {
        SignedPromotionalOffer(bundleID: "com.example.app", productID: "com.example.app.pro_monthly", offerID: "winback",
                               appAccountToken: token, keyID: "KEY1", nonce: nonce,
                               expiresAt: Date(timeIntervalSince1970: 1_800_086_400), signature: signature)
    }

    @Test("a legacy signature becomes promotionalOffer(offerID:keyID:nonce:signature:timestamp:) and the signed app account token")
    func legacyOptions() {
        let signature = Data([0x30, 0x44, 0x02, 0x20])
        let options = Self.offer(.legacy(signature: signature, timestamp: 1_800_000_000_000)).purchaseOptions
        #expect(Set(options.map(\.kind)) == [
            .promotionalOffer(offerID: "winback", keyID: "KEY1", nonce: Self.nonce, signature: signature, timestamp: 1_800_000_000_000),
            .appAccountToken(Self.user),
        ])
    }

    @Test("a JWS becomes promotionalOffer(_:compactJWS:); an empty app account token adds none")
    func jwsOptions() {
        let options = Self.offer(.jws(compactJWS: "h.p.s"), token: "").purchaseOptions
        #expect(options.map(\.kind) == [.promotionalOfferJWS(offerID: "winback", compactJWS: "h.p.s")])
    }

    @Test("an introductory-offer decision becomes introductoryOfferEligibility(compactJWS:), allowed or not")
    func introductoryOption() {
        for allowed in [true, false] {
            let decision = IntroductoryOfferEligibility(productID: "p", allowIntroductoryOffer: allowed, compactJWS: "i.n.t",
                                                        nonce: Self.nonce, keyID: "KEY1", reasons: [])
            #expect(decision.purchaseOption.kind == .introductoryOfferEligibility(compactJWS: "i.n.t"))
        }
    }

    @Test("the proof is the newest verified latest transaction of the group's products, with the app transaction")
    func proofFromStoreKit() async {
        func transaction(_ original: UInt64, daysAgo: Double, jws: String) -> Transaction {
            Transaction(originalID: original, purchaseDate: Date().addingTimeInterval(-daysAgo * 86_400), jws: jws)
        }
        Transaction.latestByProduct.withLock {
            $0 = ["monthly": .verified(transaction(100, daysAgo: 40, jws: "monthly.jws")),
                  "yearly": .verified(transaction(200, daysAgo: 400, jws: "yearly.jws")),
                  "weekly": .unverified(transaction(300, daysAgo: 1, jws: "forged.jws"), .invalidSignature)]
        }
        AppTransaction.current.withLock { $0 = .verified(AppTransaction(jws: "app.jws")) }
        let device = UUID(uuidString: "6A1C0E2B-4D3F-4B5A-9C8D-7E6F5A4B3C2D")!
        AppStore.currentDeviceVerificationID.withLock { $0 = device }
        defer { AppStore.currentDeviceVerificationID.withLock { $0 = nil } }
        let proof = await StoreKitProof.find(groupProductIDs: ["yearly", "weekly", "monthly", "unknown"])
        #expect(proof == CustomerProof(signedTransaction: "monthly.jws", signedAppTransaction: "app.jws", transactionID: "100",
                                       deviceVerificationID: device))

        AppTransaction.current.withLock { $0 = nil }
        let withoutApp = await StoreKitProof.find(groupProductIDs: ["yearly"])
        #expect(withoutApp == CustomerProof(signedTransaction: "yearly.jws", signedAppTransaction: nil, transactionID: "200",
                                            deviceVerificationID: device))
        AppTransaction.current.withLock { $0 = .unverified(AppTransaction(jws: "bad.jws"), .invalidSignature) }
        #expect(await StoreKitProof.find(groupProductIDs: ["monthly"])?.signedAppTransaction == nil)
        #expect(await StoreKitProof.find(groupProductIDs: ["weekly", "unknown"]) == nil)
    }
}
