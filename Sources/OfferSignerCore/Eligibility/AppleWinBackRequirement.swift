/// How an offer treats users whom Apple itself offers a win-back offer (the
/// `eligibleWinBackOfferIds` of their renewal info), so that marketing does not stack
/// discounts.
public enum AppleWinBackRequirement: String, Codable, Hashable, Sendable, CaseIterable {
    /// Only users Apple offers no win-back offer.
    case exclude
    /// Only users Apple offers at least one win-back offer.
    case require
}
