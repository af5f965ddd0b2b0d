import OfferSignerCore
import OfferSignerStore

extension OfferIssuer {
    /// The customer's proven subscription transaction for `request`, or nil when the caller
    /// may sign on its word and sent no transaction. In order: proof is demanded of a key
    /// shipped in apps and of an empty `userId`; every JWS sent is verified; the verified
    /// proof must match the request (app, environment, `userId`, `transactionId`, app
    /// download); only then is the transaction stored into the history, like any other
    /// verified transaction. A refusal at any step stores nothing.
    func provenTransaction(for request: IssueRequest, userId: String, bundleId: String) throws(SignRefusal) -> SubscriptionTransaction? {
        if request.proof.signedTransaction == nil {
            if request.callerTrust == .app { throw .proofRequired(.appKey) }
            if userId.isEmpty { throw .proofRequired(.emptyUserId) }
        }
        let proof = try ProofVerifier(verification: appStore, clock: clock).verify(request.proof)
        try Self.check(proof, matches: request, userId: userId, bundleId: bundleId)
        guard let stored = proof.transaction else { return nil }
        do {
            _ = try history.record(.transaction(stored))
        } catch {
            throw .store(error)
        }
        return stored.transaction
    }

    /// Verified proof must be about the request's app, environment and user: a transaction
    /// carrying an app account token proves that token only; one without proves only its
    /// subscription. Both JWS, when sent, must be of one app download.
    static func check(_ proof: VerifiedProof, matches request: IssueRequest, userId: String, bundleId: String) throws(SignRefusal) {
        if let transaction = proof.transaction?.transaction {
            guard transaction.bundleId == bundleId else { throw .proofMismatch(.otherApp(.signedTransaction)) }
            guard transaction.environment == request.environment else {
                throw .proofMismatch(.otherEnvironment(.signedTransaction, proof: transaction.environment.rawValue,
                                                       request: request.environment))
            }
            if let token = transaction.appAccountToken, token.lowercased() != userId { throw .proofMismatch(.otherUser) }
            if let asked = request.transactionId, asked != transaction.transactionId, asked != transaction.originalTransactionId {
                throw .proofMismatch(.otherTransaction)
            }
        }
        if let appTransaction = proof.appTransaction {
            guard appTransaction.bundleId == bundleId else { throw .proofMismatch(.otherApp(.signedAppTransaction)) }
            guard appTransaction.receiptType == request.environment else {
                throw .proofMismatch(.otherEnvironment(.signedAppTransaction, proof: appTransaction.rawReceiptType,
                                                       request: request.environment))
            }
            if let downloaded = appTransaction.appTransactionId, let bought = proof.transactionAppTransactionId, downloaded != bought {
                throw .proofMismatch(.otherAppDownload)
            }
        }
    }
}
