import Foundation
import OfferSignerCore
import OfferSignerStore

/// Verifies a `CustomerProof` exactly as notifications are verified (chain to a trusted
/// root, Apple's OIDs, signature, configured app, accepted environment), and judges the age of
/// an app transaction. It believes nothing unverified and stores nothing.
struct ProofVerifier {
    let verification: AppStoreVerification
    let clock: WallClock

    /// Clock skew allowed for an app transaction signed "in the future".
    static let allowedSkewMilliseconds: Int64 = 300_000

    /// The verified proof, or the first field that did not verify and why.
    func verify(_ proof: CustomerProof) throws(SignRefusal) -> VerifiedProof {
        var verified = VerifiedProof()
        if let jws = proof.signedTransaction {
            let decoded: JWSTransactionDecodedPayload
            do {
                decoded = try verification.current.verifyTransaction(jws)
            } catch {
                throw .invalidProof(.signedTransaction, .invalidSignedData(error))
            }
            guard let transaction = SubscriptionTransaction(verified: decoded) else {
                throw .invalidProof(.signedTransaction, .notASubscriptionTransaction)
            }
            verified.transaction = StoredTransaction(transaction: transaction, signedTransaction: jws)
            verified.transactionAppTransactionId = decoded.appTransactionId
            if let device = proof.deviceVerificationId, let value = decoded.deviceVerification, let nonce = decoded.deviceVerificationNonce {
                verified.deviceVerified = DeviceVerification.matches(deviceVerification: value, nonce: nonce, deviceVerificationId: device)
            }
        }
        if let jws = proof.signedAppTransaction {
            let decoded: JWSAppTransactionDecodedPayload
            do {
                decoded = try verification.current.verifyAppTransaction(jws)
            } catch {
                throw .invalidProof(.signedAppTransaction, .invalidSignedData(error))
            }
            try checkAge(of: decoded)
            verified.appTransaction = decoded
        }
        return verified
    }

    /// An app transaction is proof only while fresh: signed at most the configured age ago.
    private func checkAge(of appTransaction: JWSAppTransactionDecodedPayload) throws(SignRefusal) {
        guard let signed = appTransaction.receiptCreationDate else {
            throw .invalidProof(.signedAppTransaction, .appTransactionWithoutDate)
        }
        let (difference, overflow) = clock.now.milliseconds.subtractingReportingOverflow(signed)
        let age = overflow ? (signed > 0 ? Int64.min : Int64.max) : difference
        guard age >= -Self.allowedSkewMilliseconds else {
            throw .invalidProof(.signedAppTransaction, .appTransactionFromTheFuture)
        }
        guard age <= Int64(verification.appTransactionMaxAge) * 1000 else {
            throw .invalidProof(.signedAppTransaction,
                                .appTransactionTooOld(ageSeconds: age / 1000, maxAgeSeconds: verification.appTransactionMaxAge))
        }
    }
}
