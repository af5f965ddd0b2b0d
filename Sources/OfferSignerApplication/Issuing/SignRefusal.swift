import Foundation
import OfferSignerCore
import OfferSignerStore

/// Why `OfferIssuer` issued no signature.
public enum SignRefusal: Error, Sendable {
    /// No app with this bundle ID is configured.
    case unknownApp(bundleId: String)
    /// More than one app is configured and the request named none.
    case appNotNamed
    /// The request names an App Store environment whose signed data this service does not
    /// accept, so it has no history of it; `accepted` are those it does.
    case environmentNotAccepted(AppStoreEnvironment, accepted: Set<String>)
    /// The app has no offer with this ID.
    case offerNotFound(offerId: String, bundleId: String)
    /// The offer exists but not for this product.
    case productNotInOffer(offerId: String, productId: String)
    /// The app's fresh App Store Connect catalog says the product has no promotional offer
    /// `offerId` (`gap` says what it has): StoreKit would refuse the signature.
    case offerNotAtApple(offerId: String, gap: CatalogOfferGap, syncedAt: Date)
    /// The caller must prove who the customer is and did not: its API key is shipped in apps
    /// (`.appKey`), or the request names no user (`.emptyUserId`).
    case proofRequired(ProofRequirement)
    /// A product of an introductory-offer store page that the app does not know: no verified
    /// transaction of the environment names it, nor any of the app's rules.
    case unknownProduct(productId: String, bundleId: String)
    /// Proof of the customer verified but does not match the request.
    case proofMismatch(ProofMismatch)
    /// Proof of the customer did not verify (nothing of it was stored).
    case invalidProof(CustomerProof.Field, SignedItemRefusal)
    /// The user's history fails the offer's rule; the decision carries every failed criterion.
    case notEligible(EligibilityDecision)
    /// A parent or guardian withdrew consent for the customer's use of the app
    /// (`RESCIND_CONSENT` for their app download, not cleared since).
    case consentRescinded(appTransactionId: String, since: Date)
    /// The JWS format needs the app's issuer ID, which the keys file does not give.
    case jwsUnavailable(bundleId: String)
    /// The customer made more requests than the per-customer limit allows.
    case rateLimited(limit: RateLimit, retryAfterSeconds: Int)
    /// The user has had `maxCount` signatures of the offer in the last 24 hours.
    case quotaExceeded(offerId: String, maxCount: Int, retryAfterSeconds: Int)
    /// The signature's record could not be made durable, so the signature was withheld.
    case logUnavailable(reason: String)
    /// The signature log ends before an entry known to have been committed (by this instance,
    /// or vouched for by a checkpoint): a failover or a restore lost its tail. Nothing is
    /// appended until an operator accepts the loss (`offer-signer audit accept-truncation`).
    case chainRegressed(ChainEndMismatch)
    /// The app's key is in a hardware module that cannot sign now (token removed, module or
    /// network HSM down, every session busy); nothing was signed.
    case signingKeyUnavailable(reason: String)
    /// The database could not be reached to read the offer, the rules or the user's history, or to store a proven transaction.
    case storeUnavailable(reason: String)
    /// Something that should not fail did (the store could not be read, OpenSSL failed).
    case internalFailure(any Error)

    /// A store's failure: unavailable when the database cannot be reached, internal otherwise.
    static func store(_ error: any Error) -> SignRefusal {
        if let unavailable = error as? DatabaseUnavailable { return .storeUnavailable(reason: unavailable.reason) }
        return .internalFailure(error)
    }
}

/// Why a sign request needs proof of the customer.
public enum ProofRequirement: Sendable, Hashable {
    /// The API key is shipped in apps (`"proof": "required"`), so its word proves nothing.
    case appKey
    /// The request's `userId` is empty: only a proven subscription says who the customer is.
    case emptyUserId
}
