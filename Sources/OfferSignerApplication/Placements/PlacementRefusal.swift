import Foundation
import OfferSignerCore

/// Why `PlacementIssuer` signed no offer.
public enum PlacementRefusal: Error, Sendable {
    /// The app has no enabled placement with this ID.
    case placementNotFound(placementId: String, bundleId: String)
    /// The user is eligible for none of the placement's offers; each offer's reasons, in the
    /// placement's order.
    case noEligibleOffer(placementId: String, offers: [PlacementOfferDecision])
    /// The user's arm of the experiment running on the placement shows no offer (a no-offer
    /// control): the user is assigned, and no offer is signed.
    case experimentControl(placementId: String, experimentId: String, armId: String)
    /// The user's arm's offer was refused (not eligible, held out, not for the product): inside
    /// an experiment no other offer of the placement is tried.
    case armNotEligible(placementId: String, experimentId: String, armId: String, offer: PlacementOfferDecision)
    /// The request was refused as a sign request would be (binding, limit, consent, holdout,
    /// quota, the log); `offerId` names the placement's offer it was about when it was about
    /// one (the offer the user is held out of), nil when it came before any offer.
    case refused(SignRefusal, offerId: String? = nil)
}
