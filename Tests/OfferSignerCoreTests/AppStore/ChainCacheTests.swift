import Dispatch
import Synchronization
import Foundation
import Testing
@testable import OfferSignerCore

/// The cache of verified chains: it saves OpenSSL work, never a validity check.
@Suite struct ChainCacheTests {
    let chain = AppStoreTestChain.make(
        root: AppStoreTestPKI.root(),
        leafValidity: AppStoreTestPKI.date("2025-01-01T00:00:00Z")...AppStoreTestPKI.date("2025-12-31T00:00:00Z"))

    func transaction(signedAt: Date) -> String {
        AppStoreTestJWS.sign(AppStoreTestSetup.transaction(signedAt: signedAt), chain: chain)
    }

    @Test func secondVerificationOfTheSameChainComesFromTheCache() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(verifier.chainVerifier.cachedChainCount == 0)
        _ = try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2025-03-01T00:00:00Z")))
        #expect(verifier.chainVerifier.cachedChainCount == 1)
        let second = try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2025-09-01T00:00:00Z")))
        #expect(second.signedDate == AppStoreTestSetup.milliseconds(AppStoreTestPKI.date("2025-09-01T00:00:00Z")))
        #expect(verifier.chainVerifier.cachedChainCount == 1)
    }

    @Test func cachedChainStillRefusesPayloadsSignedOutsideItsValidity() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        _ = try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2025-03-01T00:00:00Z")))
        #expect(verifier.chainVerifier.cachedChainCount == 1)
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2026-01-15T00:00:00Z")))
        }
        #expect(throws: SignedDataError.certificateNotYetValid(.leaf)) {
            try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2024-12-31T23:59:59Z")))
        }
        #expect(verifier.chainVerifier.cachedChainCount == 1)
    }

    @Test func cachedChainStillRequiresAValidSignature() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        let valid = transaction(signedAt: AppStoreTestPKI.date("2025-03-01T00:00:00Z"))
        _ = try verifier.verifyTransaction(valid)
        let tampered = AppStoreTestJWS.replacingPayload(of: valid, with: AppStoreTestJWS.json(AppStoreTestSetup.transaction(extra: ["price": 1])))
        #expect(throws: SignedDataError.invalidSignature) { try verifier.verifyTransaction(tampered) }
    }

    @Test func failedVerificationsAreNotCached() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        #expect(throws: SignedDataError.certificateExpired(.leaf)) {
            try verifier.verifyTransaction(transaction(signedAt: AppStoreTestPKI.date("2026-01-15T00:00:00Z")))
        }
        #expect(verifier.chainVerifier.cachedChainCount == 0)
    }

    @Test func entriesExpireAfterFifteenMinutes() throws {
        let clock = AppStoreTestClock(AppStoreTestSetup.signedAt)
        let cache = VerifiedChainCache()
        let verifier = try AppStoreChainVerifier(roots: [chain.root.certificate], cache: cache, now: clock.function)
        let at = AppStoreTestPKI.date("2025-03-01T00:00:00Z")
        let verified = try verifier.verify(leaf: chain.leaf.certificate, intermediate: chain.intermediate.certificate, at: at)
        let key = VerifiedChainCache.Key(leaf: chain.leaf.certificate, intermediate: chain.intermediate.certificate)
        clock.advance(by: 14 * 60)
        #expect(cache.chain(for: key, now: clock.now)?.leafPublicKey === verified.leafPublicKey)
        clock.advance(by: 61)
        #expect(cache.chain(for: key, now: clock.now) == nil)
        #expect(cache.count == 0)
        _ = try verifier.verify(leaf: chain.leaf.certificate, intermediate: chain.intermediate.certificate, at: at)
        #expect(cache.count == 1)
    }

    @Test func cacheIsBounded() throws {
        let cache = VerifiedChainCache(capacity: 4)
        let verified = try AppStoreChainVerifier(roots: [chain.root.certificate]).verifyWithoutCache(
            leaf: chain.leaf.certificate, intermediate: chain.intermediate.certificate,
            atUnixSeconds: UnixTime.seconds(AppStoreTestPKI.date("2025-03-01T00:00:00Z")))
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var keys: [VerifiedChainCache.Key] = []
        for index in 0..<10 {
            let other = AppStoreTestChain.make(root: chain.root)
            let key = VerifiedChainCache.Key(leaf: other.leaf.certificate, intermediate: other.intermediate.certificate)
            keys.append(key)
            cache.insert(verified, for: key, now: start.addingTimeInterval(Double(index)))
            #expect(cache.count <= 4)
        }
        // The most recent entries are the ones kept.
        #expect(keys.suffix(4).allSatisfy { cache.chain(for: $0, now: start) != nil })
        #expect(cache.chain(for: keys[0], now: start) == nil)
    }

    @Test func concurrentVerificationsAgree() throws {
        let verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
        let jws = transaction(signedAt: AppStoreTestPKI.date("2025-03-01T00:00:00Z"))
        let forged = AppStoreTestJWS.sign(AppStoreTestSetup.transaction(), chain: AppStoreTestChain.make())
        let outcomes = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let accepted = (try? verifier.verifyTransaction(index.isMultiple(of: 2) ? jws : forged)) != nil
            outcomes.withLock { $0.append(accepted == index.isMultiple(of: 2)) }
        }
        #expect(outcomes.withLock { $0.count == 64 && $0.allSatisfy { $0 } })
        #expect(verifier.chainVerifier.cachedChainCount == 1)
    }
}
