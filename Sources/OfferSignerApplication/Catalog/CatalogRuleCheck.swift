import Foundation
import OfferSignerCore
import OfferSignerStore

/// Checks an offer rule against the app's App Store Connect catalog before it is saved: each
/// of its products must have the rule's `offerId` as a promotional offer at Apple.
public struct CatalogRuleCheck: Sendable {
    let catalogs: AppStoreCatalogs

    public init(catalogs: AppStoreCatalogs) {
        self.catalogs = catalogs
    }

    /// What the check found.
    public enum Verdict: Sendable, Equatable {
        /// Every product has the offer at Apple.
        case matches
        /// The app has no catalog: the rule is saved with this warning.
        case notChecked(warning: String)
        /// These products lack the offer in the catalog synced at `syncedAt`.
        case lacking([CatalogOfferGap], syncedAt: Date)
    }

    /// The warning a rule saved without a catalog carries.
    public static func notCheckedWarning(_ bundleId: String) -> String {
        "not checked against App Store Connect: no catalog of \(bundleId) has been synced "
            + "(give the app an appStoreConnect Team key, then POST /v1/admin/catalog/sync or run offer-signer catalog sync)"
    }

    /// The verdict on the rule of `offerId` for `productIds` in `bundleId`.
    ///
    /// - Throws: the store's error when the catalog cannot be read.
    public func check(offerId: String, bundleId: String, productIds: [String]) throws -> Verdict {
        guard let stored = try catalogs.stored(bundleId: bundleId), let catalog = stored.catalog, let syncedAt = stored.syncedAt else {
            return .notChecked(warning: Self.notCheckedWarning(bundleId))
        }
        let gaps = catalog.gaps(offerId: offerId, productIds: productIds)
        return gaps.isEmpty ? .matches : .lacking(gaps, syncedAt: syncedAt)
    }
}
