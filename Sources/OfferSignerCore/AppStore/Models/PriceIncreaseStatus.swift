/// Whether the customer has responded to a subscription price increase.
///
/// [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus)
public enum PriceIncreaseStatus: Int32, Codable, Hashable, Sendable, CaseIterable {
    case customerHasNotResponded = 0
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
