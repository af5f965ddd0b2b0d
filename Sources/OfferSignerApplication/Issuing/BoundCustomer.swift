import OfferSignerCore

/// The customer a signature is for, as far as it is proven: the app (with its signing key),
/// the App Store environment whose history counts, the user and the subscription proven.
struct BoundCustomer: Sendable {
    let app: AppKeys
    /// The app account token, lowercased as Apple does; empty for a customer without one
    /// (only with a proven subscription).
    let userId: String
    let environment: AppStoreEnvironment
    /// The `originalTransactionId` of the subscription a verified transaction or the App Store
    /// itself proved; its whole history counts and the signature is bound to it.
    let provenSubscription: String?
    /// The app downloads (`appTransactionId`) the customer's verified proof names.
    var appDownloads: [String] = []
    /// The proven subscription when the verified transaction carries no app account token, is
    /// the customer's own purchase (not Family Sharing) and the proof shows the asking device
    /// holds it (``VerifiedProof/showsPossession``): one that may be linked to `userId` at
    /// Apple once the request is answered. A copy of someone's JWS never is.
    var tokenlessSubscription: String?
}
