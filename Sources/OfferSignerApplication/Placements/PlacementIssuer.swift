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
///
/// While an experiment runs on the placement, the user's arm decides instead
/// (``ExperimentAssigner``): after binding and the consent check, before eligibility, the
/// user is assigned (once, recorded), and only the arm's offer is judged and signed; a
/// no-offer arm, or an arm's offer refused, signs nothing and keeps the assignment (the
/// experiment counts assigned users: intention to treat).
///
/// With an experiment store, the placement and the running experiment come from the rules it
/// keeps in memory, so beside the sign path a request reads only the user's assignment — or,
/// where the store leaves it unread (SQLite, one weight period), the signature's commit reads
/// it with the insert, and a refused request reads it before recording.
public struct PlacementIssuer: Sendable {
    let issuer: OfferIssuer
    let rules: any RuleStore
    /// Experiments' assignments (nil: experiments are not looked up).
    let assigner: ExperimentAssigner?

    public init(issuer: OfferIssuer, rules: any RuleStore, experiments: (any ExperimentStore)? = nil, metrics: Metrics = Metrics()) {
        self.issuer = issuer
        self.rules = rules
        assigner = experiments.map { ExperimentAssigner(experiments: $0, metrics: metrics) }
    }

    /// Signs the placement's first offer `request`'s customer is eligible for, or says why none.
    public func issue(_ request: PlacementRequest) throws(PlacementRefusal) -> PlacedOffer {
        let customer: BoundCustomer
        do {
            customer = try issuer.admit(request.offer)
        } catch {
            throw .refused(error)
        }
        do {
            return try issue(request, customer)
        } catch {
            throw issuer.refusals.announced(error, request, customer)
        }
    }

    /// The placement's offer for the bound `customer`, or why none.
    private func issue(_ request: PlacementRequest, _ customer: BoundCustomer) throws(PlacementRefusal) -> PlacedOffer {
        let bundleId = customer.app.bundleId
        guard let assigner else {
            let stored: StoredRule<Placement>?
            do {
                stored = try rules.rule(Placement.self, bundleId: bundleId, ruleId: request.placementId)
            } catch {
                throw .refused(.store(error))
            }
            return try firstEligible(request, customer, placement: Self.enabled(stored, request.placementId, bundleId: bundleId))
        }
        // The placement and the experiment running on it, from one look at the rules in memory.
        let userKey = OfferHoldout.userKey(appAccountToken: customer.userId, provenOriginalTransactionId: customer.provenSubscription)
        let found: (placement: StoredRule<Placement>?, running: RunningExperiment?)
        do {
            found = try assigner.experiments.placementAndRunning(bundleId: bundleId, placementId: request.placementId, userKey: userKey)
        } catch {
            throw .refused(.store(error))
        }
        let placement = try Self.enabled(found.placement, request.placementId, bundleId: bundleId)
        if let running = found.running {
            return try issue(request, customer, placement: placement, experiment: running, userKey: userKey, assigner: assigner)
        }
        return try firstEligible(request, customer, placement: placement)
    }

    /// The first of the placement's offers the bound `customer` is eligible for, signed, or why none.
    private func firstEligible(_ request: PlacementRequest, _ customer: BoundCustomer, placement: Placement) throws(PlacementRefusal) -> PlacedOffer {
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
            } catch .offerNotAtApple(let offerId, let gap, _) {
                passedOver.append(PlacementOfferDecision(offerId: offerId, reasons: [.notAtApple(gap, offerId: offerId)]))
            } catch .notEligible(let decision) {
                guard decision.reasons.contains(where: { $0.criterion == OfferHoldout.criterion }) else {
                    passedOver.append(PlacementOfferDecision(offerId: offerId, reasons: decision.reasons))
                    continue
                }
                // Held out of the offer chosen: no other offer is tried, and the refusal names it.
                throw .refused(.notEligible(decision), offerId: offerId)
            } catch {
                throw .refused(error)
            }
        }
        throw .noEligibleOffer(placementId: placement.placementId, offers: passedOver)
    }

    /// Signs the offer of the user's arm of the experiment running on the placement, or says
    /// why not; the assignment is recorded whatever the outcome, once consent let the user
    /// through: with the signature, in its commit, when the arm's offer is signed; in a commit
    /// of its own when the request is refused. A new user found assigned to another arm at
    /// that commit (their other request, drawn under other weights, committed first) is served
    /// that arm instead (`consented`: the history already read).
    private func issue(_ request: PlacementRequest, _ customer: BoundCustomer, placement: Placement, experiment running: RunningExperiment,
                       userKey: String, assigner: ExperimentAssigner, consented: UserHistory? = nil) throws(PlacementRefusal) -> PlacedOffer {
        var offerRequest = request.offer
        let history: UserHistory
        if let consented {
            history = consented
        } else {
            do {
                history = try issuer.promotional.consentedHistory(customer, request: offerRequest)
            } catch {
                throw .refused(error)
            }
        }
        let now = issuer.clock.now
        let experimentId = running.experiment.rule.experimentId
        guard let assignment = assigner.arm(running, userKey: userKey, environment: customer.environment, now: now),
              let arm = running.experiment.rule.arms.first(where: { $0.armId == assignment.armId }) else {
            throw .refused(.store(ExperimentAssignmentError.noArm(experimentId: experimentId)))
        }
        /// Serves the arm of `stored`, the user's assignment that stands.
        func follow(_ stored: ExperimentAssignment) throws(PlacementRefusal) -> PlacedOffer {
            guard running.assignment == nil else { throw .refused(.store(ExperimentAssignmentError.noArm(experimentId: experimentId))) }
            var followed = running
            followed.assignment = stored
            followed.assignmentRead = true
            return try issue(request, customer, placement: placement, experiment: followed, userKey: userKey, assigner: assigner,
                             consented: history)
        }
        // Another arm found standing where a refusal records the assignment.
        var standing: ExperimentAssignment?
        func record(eligible: Bool) throws(PlacementRefusal) {
            do {
                var recorded = assignment
                var previous = running.assignment
                if !running.assignmentRead, let stored = try assigner.stored(running, userKey: userKey) {
                    // Not read with the experiment: the stored assignment is the one to mark, or to follow.
                    guard stored.armId == assignment.armId else {
                        standing = stored
                        return
                    }
                    recorded = stored
                    previous = stored
                }
                let stands = try assigner.record(recorded, previous: previous, eligible: eligible, signedAt: nil)
                if stands.armId != assignment.armId { standing = stands }
            } catch {
                throw .refused(error)
            }
        }
        func signArm() throws(PlacementRefusal) -> PlacedOffer {
            guard let offerId = arm.offerId else {
                try record(eligible: false)
                throw .experimentControl(placementId: placement.placementId, experimentId: experimentId, armId: arm.armId)
            }
            offerRequest.offerId = offerId
            func armRefused(_ reasons: [EligibilityReason], eligible: Bool) throws(PlacementRefusal) -> PlacementRefusal {
                try record(eligible: eligible)
                return .armNotEligible(placementId: placement.placementId, experimentId: experimentId, armId: arm.armId,
                                       offer: PlacementOfferDecision(offerId: offerId, reasons: reasons))
            }
            let rule: OfferRule
            do {
                rule = try issuer.promotional.rule(offerId, productId: offerRequest.productId, bundleId: customer.app.bundleId)
                try issuer.promotional.judge(customer, rule: rule, request: offerRequest, now: now, consented: history)
            } catch .offerNotFound {
                throw try armRefused([.offerNotConfigured()], eligible: false)
            } catch .productNotInOffer(_, let productId) {
                throw try armRefused([.productNotInOffer(productId)], eligible: false)
            } catch .notEligible(let decision) {
                throw try armRefused(decision.reasons, eligible: decision.reasons.contains { $0.criterion == OfferHoldout.criterion })
            } catch {
                try record(eligible: false)
                throw .refused(error)
            }
            let signed: AssignedSignature
            do {
                signed = try issuer.signJudged(offerRequest, for: customer, rule: rule, now: now,
                                               assigning: SignedAssignment(assignment: assignment, previous: running.assignment,
                                                                           previousRead: running.assignmentRead))
            } catch .quotaExceeded(let offerId, let maxCount, let retry) {
                // The log's commit recorded the assignment (eligible, not signed).
                throw .refused(.quotaExceeded(offerId: offerId, maxCount: maxCount, retryAfterSeconds: retry))
            } catch {
                // Nothing was committed (or the key could not sign): the assignment in a commit of its own, if the database takes it.
                _ = try? record(eligible: true)
                throw .refused(error)
            }
            switch signed {
            case .assignedElsewhere(let stored):
                return try follow(stored)
            case .signed(let issued, let newlyAssigned):
                if newlyAssigned { assigner.counted(assignment) }
                issuer.answered(offerRequest, customer)
                return PlacedOffer(issued: issued, placementId: placement.placementId, experimentId: experimentId, armId: arm.armId)
            }
        }
        do {
            return try signArm()
        } catch {
            if let standing { return try follow(standing) }
            throw error
        }
    }

    /// The placement `stored`, unless it is missing or disabled.
    private static func enabled(_ stored: StoredRule<Placement>?, _ placementId: String, bundleId: String) throws(PlacementRefusal) -> Placement {
        guard let placement = stored?.rule, placement.enabled else {
            throw .placementNotFound(placementId: placementId, bundleId: bundleId)
        }
        return placement
    }
}
