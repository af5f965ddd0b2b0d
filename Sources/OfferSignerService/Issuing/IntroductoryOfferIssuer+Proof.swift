import OfferSignerCore
import OfferSignerStore

extension IntroductoryOfferIssuer {
    /// The customer's proven subscription (`originalTransactionId`) for `request`, or nil when
    /// the caller may ask on its word and sent no transaction. The rules are signing's
    /// (`OfferIssuer.provenTransaction`): proof is demanded of a key shipped in apps and of an
    /// empty `userId`; what is sent must verify and be of the request's app, environment and
    /// user; the request's `transactionId` must be the proven transaction, its original, or —
    /// as Apple accepts for this JWS — the customer's `appTransactionId`. The proven
    /// transaction is then stored like any verified one. A refusal stores nothing.
    func provenSubscription(for request: IntroductoryOfferRequest, userId: String, bundleId: String) throws(SignRefusal) -> String? {
        if request.proof.signedTransaction == nil {
            if request.callerTrust == .app { throw .proofRequired(.appKey) }
            if userId.isEmpty { throw .proofRequired(.emptyUserId) }
        }
        let proof = try ProofVerifier(verification: appStore, clock: clock).verify(request.proof)
        let downloads = [proof.transactionAppTransactionId, proof.appTransaction?.appTransactionId].compactMap { $0 }
        let asSigning = IssueRequest(
            bundleId: bundleId, productId: request.productId, offerId: "", userId: userId, format: .jws,
            transactionId: downloads.contains(request.transactionId) ? nil : request.transactionId,
            environment: request.environment, requestedBy: request.requestedBy, requestId: request.requestId,
            proof: request.proof, callerTrust: request.callerTrust)
        try OfferIssuer.check(proof, matches: asSigning, userId: userId, bundleId: bundleId)
        guard let stored = proof.transaction else { return nil }
        do {
            _ = try history.record(.transaction(stored))
        } catch {
            throw .store(error)
        }
        return stored.transaction.originalTransactionId
    }
}
