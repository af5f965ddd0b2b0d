import Foundation

/// The holdout of an offer: otherwise-eligible users kept back, never signed, so that the
/// offer's effect can be measured against them.
///
/// A user falls in the holdout when a stable hash of (bundle ID, offer ID, user) falls under
/// the rule's `holdoutPercent`: the first 8 bytes of SHA-256 of the three joined by U+0000,
/// big-endian, modulo 10,000, below `holdoutPercent` × 100, for a user not yet decided. A
/// user's first decision is sticky (``held(bundleId:offerId:user:percent:firstDecisionHeldOut:)``):
/// a held-out user stays held out while the offer has a holdout, a signed user is never held
/// out, so changing the percentage only places users not yet decided.
public enum OfferHoldout {
    /// The highest `holdoutPercent` a rule may set.
    public static let maxPercent = 50

    /// What a user key of a customer without an app account token starts with.
    public static let transactionUserPrefix = "transaction:"

    /// The user a holdout and a decision are about: the app account token, or, for a customer
    /// without one, `transaction:` and the proven original transaction ID.
    public static func userKey(appAccountToken: String, provenOriginalTransactionId: String?) -> String {
        appAccountToken.isEmpty ? transactionUserPrefix + (provenOriginalTransactionId ?? "") : appAccountToken
    }

    /// The user's place, 0..<10,000, in the offer's stable order.
    public static func bucket(bundleId: String, offerId: String, user: String) -> Int {
        let digest = SHA256Digest.hash(Array("\(bundleId)\u{0}\(offerId)\u{0}\(user)".utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % 10_000)
    }

    /// Whether `user` is held out of the offer at `percent` (0 holds no one out).
    public static func isHeldOut(bundleId: String, offerId: String, user: String, percent: Int) -> Bool {
        guard percent > 0 else { return false }
        return bucket(bundleId: bundleId, offerId: offerId, user: user) < min(percent, 100) * 100
    }

    /// Whether `user` is held out of the offer at `percent`, given the user's first decision
    /// about it (nil: none yet): 0 holds no one out; a signed user stays treated, a held-out
    /// one stays held out; an undecided user is placed by ``isHeldOut(bundleId:offerId:user:percent:)``.
    public static func held(bundleId: String, offerId: String, user: String, percent: Int, firstDecisionHeldOut: Bool?) -> Bool {
        guard percent > 0 else { return false }
        return firstDecisionHeldOut ?? isHeldOut(bundleId: bundleId, offerId: offerId, user: user, percent: percent)
    }

    /// The criterion of a held-out user's refusal.
    public static let criterion = "holdout"

    /// The reason a held-out user is refused.
    public static func reason(percent: Int) -> EligibilityReason {
        EligibilityReason(criterion: criterion, required: .bool(false), actual: .bool(true),
                          message: "This user is in the offer's \(percent)% holdout group, kept back to measure what the offer changes.")
    }

    /// `decision` with the holdout applied: an eligible user in the holdout of `rule` (given the
    /// user's first decision, nil when none) becomes ineligible with the `holdout` reason; any
    /// other decision is returned as it is.
    public static func apply(to decision: EligibilityDecision, rule: OfferRule, user: String,
                             firstDecisionHeldOut: Bool? = nil) -> EligibilityDecision {
        guard decision.eligible, held(bundleId: rule.bundleId, offerId: rule.offerId, user: user, percent: rule.holdoutPercent,
                                      firstDecisionHeldOut: firstDecisionHeldOut)
        else { return decision }
        return EligibilityDecision(reasons: [reason(percent: rule.holdoutPercent)])
    }
}
