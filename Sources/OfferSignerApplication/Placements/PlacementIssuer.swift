import Foundation
import OfferSignerCore
import OfferSignerStore

/// Signs "the offer of this placement": the service picks, among the placement's offers in
/// their order, the first the user is eligible for, and signs it in the same request through
/// the issuing pipeline (``OfferIssuer``: one binding and one per-customer limit for the
/// request, then consent, eligibility, the holdout, the quota and the log for the offer).
///
/// An offer of the placement that is not for the product, or that the user fails, is passed
/// over and its reasons kept; when none is left the refusal lists every offer's reasons. A
/// user held out of the offer chosen gets none (the holdout then measures the offer against
/// no offer, as it does through `POST /v1/offers/sign`); a refusal that is not about the offer
/// (consent rescinded, quota, the log) ends the request as it would a sign request.
public struct PlacementIssuer: Sendable {
    let issuer: OfferIssuer
    let rules: any RuleStore

    public init(issuer: OfferIssuer, rules: any RuleStore) {
        self.issuer = issuer
        self.rules = rules
    }

    /// Signs the placement's first offer `request`'s customer is eligible for, or says why none.
    public func issue(_ request: PlacementRequest) throws(PlacementRefusal) -> PlacedOffer {
        let customer: BoundCustomer
        do {
            customer = try issuer.admit(request.offer)
        } catch {
            throw .refused(error)
        }
        let placement = try enabledPlacement(request.placementId, bundleId: customer.app.bundleId)
        var passedOver: [PlacementOfferDecision] = []
        for offerId in placement.offerIds {
            var offerRequest = request.offer
            offerRequest.offerId = offerId
            do {
                let rule = try issuer.promotional.rule(offerId, productId: offerRequest.productId, bundleId: customer.app.bundleId)
                let issued = try issuer.sign(offerRequest, for: customer, rule: rule)
                issuer.answered(offerRequest, customer)
                return PlacedOffer(issued: issued, placementId: placement.placementId)
            } catch .offerNotFound(let offerId, _) {
                passedOver.append(PlacementOfferDecision(offerId: offerId, reasons: [.offerNotConfigured()]))
            } catch .productNotInOffer(let offerId, let productId) {
                passedOver.append(PlacementOfferDecision(offerId: offerId, reasons: [.productNotInOffer(productId)]))
            } catch .notEligible(let decision) where !decision.reasons.contains(where: { $0.criterion == OfferHoldout.criterion }) {
                passedOver.append(PlacementOfferDecision(offerId: offerId, reasons: decision.reasons))
            } catch {
                throw .refused(error)
            }
        }
        throw .noEligibleOffer(placementId: placement.placementId, offers: passedOver)
    }

    private func enabledPlacement(_ placementId: String, bundleId: String) throws(PlacementRefusal) -> Placement {
        let stored: StoredRule<Placement>?
        do {
            stored = try rules.rule(Placement.self, bundleId: bundleId, ruleId: placementId)
        } catch {
            throw .refused(.store(error))
        }
        guard let placement = stored?.rule, placement.enabled else {
            throw .placementNotFound(placementId: placementId, bundleId: bundleId)
        }
        return placement
    }
}
