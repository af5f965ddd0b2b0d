import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's first step: binds a request to its customer. In order: the app must
/// be configured and the environment accepted; proof is demanded of a key shipped in apps and
/// of an empty `userId`; every JWS sent is verified; the verified proof must match the request
/// (app, environment, `userId`, `transactionId`, app download); only then is the proven
/// transaction stored into the history, like any other verified transaction. A refusal at any
/// step stores nothing.
struct CustomerBinder: Sendable {
    let keyRing: KeyRing
    let proofs: ProofVerifier
    let history: any SubscriptionHistoryStore

    /// The customer `claim` is proven to be, or why it is refused.
    func bind(_ claim: CustomerClaim) throws(SignRefusal) -> BoundCustomer {
        guard let app = keyRing.current.app(bundleId: claim.bundleId) else {
            throw claim.bundleId.map { .unknownApp(bundleId: $0) } ?? .appNotNamed
        }
        let accepted = proofs.verification.acceptedEnvironments
        guard accepted.contains(claim.environment.rawValue) else {
            throw .environmentNotAccepted(claim.environment, accepted: accepted)
        }
        let userId = UserIdFolding.folded(claim.userId)
        if let proven = claim.appStoreSubscription {
            return BoundCustomer(app: app, userId: userId, environment: claim.environment, provenSubscription: proven)
        }
        let proof = try provenSubscription(claim, userId: userId, bundleId: app.bundleId)
        let proven = proof.transaction?.transaction
        return BoundCustomer(app: app, userId: userId, environment: claim.environment,
                             provenSubscription: proven?.originalTransactionId, appDownloads: proof.appDownloads,
                             tokenlessSubscription: proven.flatMap {
                                 $0.appAccountToken == nil && $0.inAppOwnershipType != "FAMILY_SHARED" && proof.showsPossession
                                     ? $0.originalTransactionId : nil
                             })
    }

    /// The verified proof (its transaction stored into the history), empty when the caller
    /// may ask on its word and sent none.
    private func provenSubscription(_ claim: CustomerClaim, userId: String, bundleId: String) throws(SignRefusal) -> VerifiedProof {
        if claim.proof.signedTransaction == nil {
            if claim.callerTrust == .app { throw .proofRequired(.appKey) }
            if userId.isEmpty { throw .proofRequired(.emptyUserId) }
        }
        let proof = try proofs.verify(claim.proof)
        try Self.check(proof, matches: claim, userId: userId, bundleId: bundleId)
        guard let stored = proof.transaction else { return proof }
        do {
            _ = try history.record(.transaction(stored))
        } catch {
            throw .store(error)
        }
        return proof
    }

    /// Verified proof must be about the claim's app, environment and user: a transaction
    /// carrying an app account token proves that token only; one without proves only its
    /// subscription. Both JWS, when sent, must be of one app download.
    static func check(_ proof: VerifiedProof, matches claim: CustomerClaim, userId: String, bundleId: String) throws(SignRefusal) {
        if let transaction = proof.transaction?.transaction {
            guard transaction.bundleId == bundleId else { throw .proofMismatch(.otherApp(.signedTransaction)) }
            guard transaction.environment == claim.environment else {
                throw .proofMismatch(.otherEnvironment(.signedTransaction, proof: transaction.environment.rawValue,
                                                       request: claim.environment))
            }
            if let token = transaction.appAccountToken, token.lowercased() != userId { throw .proofMismatch(.otherUser) }
            if let asked = claim.transactionId, asked != transaction.transactionId, asked != transaction.originalTransactionId,
               !(claim.transactionMayBeAppDownload && proof.appDownloads.contains(asked)) {
                throw .proofMismatch(.otherTransaction)
            }
            if proof.deviceVerified == false { throw .proofMismatch(.otherDevice) }
        }
        if let appTransaction = proof.appTransaction {
            guard appTransaction.bundleId == bundleId else { throw .proofMismatch(.otherApp(.signedAppTransaction)) }
            guard appTransaction.receiptType == claim.environment else {
                throw .proofMismatch(.otherEnvironment(.signedAppTransaction, proof: appTransaction.rawReceiptType,
                                                       request: claim.environment))
            }
            if let downloaded = appTransaction.appTransactionId, let bought = proof.transactionAppTransactionId, downloaded != bought {
                throw .proofMismatch(.otherAppDownload)
            }
        }
    }
}
