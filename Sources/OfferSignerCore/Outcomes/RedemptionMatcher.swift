import Foundation

/// Matches redemptions to the signatures that explain them.
///
/// A redemption of offer O in app B is matched to a signature issued here for (B, O) to the
/// same customer — the same app account token, or the same proven original transaction — whose
/// timestamp is at or before the redemption's first `purchaseDate` and no more than 24 hours
/// before it (the validity StoreKit allows). Each signature explains at most one redemption.
public enum RedemptionMatcher {
    /// How long before a redemption its signature may have been made: 24 hours.
    public static let window: TimeInterval = 86_400

    /// A redemption to match.
    public struct Redemption: Hashable, Sendable {
        /// Identifies the redemption in the answer (its first transaction, say).
        public var id: String
        public var bundleId: String
        public var offerId: String
        public var appAccountToken: String?
        public var originalTransactionId: String
        public var purchaseDate: Date

        public init(id: String, bundleId: String, offerId: String, appAccountToken: String?, originalTransactionId: String,
                    purchaseDate: Date) {
            self.id = id
            self.bundleId = bundleId
            self.offerId = offerId
            self.appAccountToken = appAccountToken
            self.originalTransactionId = originalTransactionId
            self.purchaseDate = purchaseDate
        }
    }

    /// A signature that may explain one.
    public struct Signature: Hashable, Sendable {
        public var nonce: String
        public var bundleId: String
        public var offerId: String
        /// The app account token it was made for (lowercased); empty for a customer without one.
        public var userId: String
        /// The proven original transaction it is bound to, if any.
        public var transactionId: String?
        /// Apple's timestamp of the signature.
        public var timestamp: Date

        public init(nonce: String, bundleId: String, offerId: String, userId: String, transactionId: String?, timestamp: Date) {
            self.nonce = nonce
            self.bundleId = bundleId
            self.offerId = offerId
            self.userId = userId
            self.transactionId = transactionId
            self.timestamp = timestamp
        }

        /// Whether this signature could explain `redemption` (same app, offer and customer, in the window).
        public func couldExplain(_ redemption: Redemption) -> Bool {
            guard bundleId == redemption.bundleId, offerId == redemption.offerId else { return false }
            let sameToken = !userId.isEmpty && userId == redemption.appAccountToken?.lowercased()
            let sameSubscription = transactionId.map { $0 == redemption.originalTransactionId } ?? false
            guard sameToken || sameSubscription else { return false }
            return timestamp <= redemption.purchaseDate && redemption.purchaseDate.timeIntervalSince(timestamp) <= RedemptionMatcher.window
        }
    }

    /// The signature (by nonce) matched to each redemption (by ID) that has one. Redemptions
    /// are taken oldest first, each given the oldest signature not yet used whose window holds
    /// it (which matches as many as possible: a signature's window closes in the order it opened).
    /// Nonces in `used` explain other redemptions already and are not given again.
    public static func match(_ redemptions: [Redemption], signatures: [Signature], used: Set<String> = []) -> [String: String] {
        var taken = used
        var matches: [String: String] = [:]
        let candidates = signatures.sorted { ($0.timestamp, $0.nonce) < ($1.timestamp, $1.nonce) }
        for redemption in redemptions.sorted(by: { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }) {
            guard let signature = candidates.first(where: { !taken.contains($0.nonce) && $0.couldExplain(redemption) }) else { continue }
            taken.insert(signature.nonce)
            matches[redemption.id] = signature.nonce
        }
        return matches
    }
}
