import Foundation
import OfferSignerCore

/// Why `PlacementIssuer` signed no offer.
public enum PlacementRefusal: Error, Sendable {
    /// The app has no enabled placement with this ID.
    case placementNotFound(placementId: String, bundleId: String)
    /// The user is eligible for none of the placement's offers; each offer's reasons, in the
    /// placement's order.
    case noEligibleOffer(placementId: String, offers: [PlacementOfferDecision])
    /// The request was refused as a sign request would be (binding, limit, consent, holdout,
    /// quota, the log).
    case refused(SignRefusal)
}
