import AppStoreServerAPI
import Foundation
import OfferSignerCore

/// Why a promotional offer was not created, re-priced or deleted at Apple, or a price point not read.
public enum AppStoreOfferFailure: Error, Sendable, CustomStringConvertible {
    /// Refused before anything was sent: each sentence names a field and the rule.
    case invalid([String])
    /// No app of this bundle ID is configured.
    case unknownApp(String)
    /// The app has no `appStoreConnect` Team key.
    case notConfigured(bundleId: String)
    /// The product is not a subscription of the app at Apple (`known`: the product IDs it has).
    case productNotAtApple(productId: String, known: [String])
    /// The product has no promotional offer of this code at Apple.
    case offerNotFound(productId: String, offerCode: String, existing: [String])
    /// The product already has an offer of this code at Apple, with other terms or prices.
    case offerCodeTaken(productId: String, offerCode: String, existing: CatalogPromotionalOffer)
    /// The product already has Apple's maximum of promotional offers.
    case limitReached(productId: String, count: Int)
    /// No price point of the subscription in `territory` has this customer price (`nearest`: the closest ones).
    case priceNotAvailable(territory: String, customerPrice: String, nearest: [String])
    /// Apple equalizes the price to none of these territories.
    case notEqualized(territories: [String])
    /// Enabled offer rules name the offer: it stays at Apple until they are disabled.
    case inUse(offerIds: [String])
    /// App Store Connect failed or refused.
    case apple(AppStoreConnectError)
    /// Apple made the change, but it could not be recorded.
    case notRecorded(String)

    public var description: String {
        switch self {
        case .invalid(let problems): problems.joined(separator: "; ")
        case .unknownApp(let bundleId): "no app with bundleId '\(bundleId)' is configured"
        case .notConfigured(let bundleId):
            "the keys file gives \(bundleId) no appStoreConnect Team key (issuerId, keyId, privateKeyPath): nothing can be sent to App Store Connect"
        case .productNotAtApple(let productId, let known):
            "product '\(productId)' is not a subscription of the app in App Store Connect (it has "
                + (known.isEmpty ? "none" : known.map { "'\($0)'" }.joined(separator: ", ")) + ")"
        case .offerNotFound(let productId, let offerCode, let existing):
            "product '\(productId)' has no promotional offer '\(offerCode)' in App Store Connect (it has "
                + (existing.isEmpty ? "none" : existing.map { "'\($0)'" }.joined(separator: ", ")) + ")"
        case .offerCodeTaken(let productId, let offerCode, let existing):
            "product '\(productId)' already has a promotional offer '\(offerCode)' in App Store Connect with other terms or prices "
                + "(\(existing.offerMode ?? "?") \(existing.duration ?? "?") × \(existing.numberOfPeriods ?? 0)); "
                + "offer codes are unique per product: choose another code, or replace its prices with PATCH …/\(offerCode)/prices"
        case .limitReached(let productId, let count):
            "product '\(productId)' has \(count) promotional offers in App Store Connect, Apple's maximum of "
                + "\(PromotionalOfferDraft.maxOffersPerSubscription): delete one first"
        case .priceNotAvailable(let territory, let customerPrice, let nearest):
            "no price point of the subscription in \(territory) is \(customerPrice)"
                + (nearest.isEmpty ? "" : " (the nearest: \(nearest.joined(separator: ", ")))")
        case .notEqualized(let territories):
            "Apple equalizes the price to no price point in \(territories.joined(separator: ", "))"
        case .inUse(let offerIds):
            "enabled offer rules name this offer (\(offerIds.map { "'\($0)'" }.joined(separator: ", "))): disable them before deleting it at Apple"
        case .apple(let error): error.description
        case .notRecorded(let reason):
            "Apple made the change, but the service could not record it in the audit log (\(reason)); the change stands at Apple"
        }
    }
}
