import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/offers/sign`: checks the offer and the user's eligibility, signs with the app's
/// active key, and answers only after the signature's record is durably in the log.
struct SignHandler {
    let dependencies: ServiceDependencies

    func handle(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try RateLimits.check(dependencies.rateLimits.signPerAPIKey, context.principal?.name ?? "", what: "signing requests for this API key")
        let body = try request.decodeJSON(SignRequest.self)
        try body.validate()
        let userId = body.userId.lowercased()
        try RateLimits.check(dependencies.rateLimits.signPerUser, userId, what: "signing requests for this user")
        let configuration = dependencies.keyRing.current
        guard let app = configuration.app(bundleId: body.bundleId) else {
            if let bundleId = body.bundleId { throw HTTPProblem.notFound("no app with bundleId '\(bundleId)' is configured") }
            throw HTTPProblem.invalidRequest("'bundleId' is required when more than one app is configured")
        }
        guard let offer = try dependencies.offers.offer(id: body.offerId), offer.rule.bundleId == app.bundleId else {
            throw HTTPProblem.notFound("no offer '\(body.offerId)' is configured for \(app.bundleId)")
        }
        guard offer.rule.productIds.contains(body.productId) else {
            throw HTTPProblem.notFound("offer '\(body.offerId)' is not for product '\(body.productId)'")
        }
        let now = dependencies.clock.now
        let decision = try EligibilityCheck(history: dependencies.history)
            .decide(userId: userId, rule: offer.rule, productId: body.productId, now: now)
        guard decision.eligible else { throw NotEligible(decision: decision).problem }

        let signer = app.signer
        let offerRequest = PromotionalOfferRequest(
            bundleId: app.bundleId, keyIdentifier: signer.keyIdentifier, productId: body.productId, offerId: body.offerId,
            appAccountToken: userId, nonce: SecureRandom.timeOrderedUUID(now: now).uuidString.lowercased(), timestamp: now.milliseconds,
            transactionId: body.transactionId)
        let signature = try sign(offerRequest, format: body.format, with: signer, bundleId: app.bundleId)
        let record = SignatureRecord(
            nonce: offerRequest.nonce, format: body.format.rawValue, bundleId: app.bundleId, productId: body.productId,
            offerId: body.offerId, userId: userId, keyId: signer.keyIdentifier, timestamp: offerRequest.timestamp,
            signature: signature, transactionId: body.transactionId, apiKeyName: context.principal?.name ?? "",
            requestId: context.requestId, recordedAt: dependencies.clock.now.milliseconds)
        let quota = offer.rule.limits.maxSignaturesPerUserPerDay.map { SignatureQuota(maxCount: $0) }
        try appendDurably(record, quota: quota, requestId: context.requestId)
        dependencies.metrics.recordSignature(offerId: body.offerId, format: body.format.rawValue)
        let expiresAt = Date(milliseconds: offerRequest.timestamp + 86_400_000)
        let response = SignResponse(
            format: body.format, bundleId: app.bundleId, productId: body.productId, offerId: body.offerId,
            appAccountToken: userId, keyIdentifier: signer.keyIdentifier, nonce: offerRequest.nonce,
            timestamp: offerRequest.timestamp, signature: signature, expiresAt: expiresAt)
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(response.json.utf8))
    }

    private func sign(_ request: PromotionalOfferRequest, format: SignatureFormat, with signer: PromotionalOfferSigner,
                      bundleId: String) throws -> String {
        switch format {
        case .legacy:
            return try signer.legacySignature(for: request)
        case .jws:
            do {
                return try signer.compactJWS(for: request)
            } catch {
                if case .missingIssuerId = error {
                    throw HTTPProblem.invalidRequest("the jws format is not available: \(bundleId) has no issuerId in the keys file")
                }
                throw error
            }
        }
    }

    /// Appends the record; 429 when the quota is used up, 503 when it cannot be written.
    private func appendDurably(_ record: SignatureRecord, quota: SignatureQuota?, requestId: String) throws {
        do {
            _ = try dependencies.signatures.append(record, quota: quota)
        } catch {
            switch error {
            case .quotaExceeded(let seconds):
                throw HTTPProblem.rateLimited(
                    "the user has had \(quota?.maxCount ?? 0) signatures of offer '\(record.offerId)' in the last 24 hours",
                    retryAfterSeconds: seconds)
            case .unavailable(let reason):
                dependencies.logger.log(.error, "signature log append failed; no signature issued",
                                        ["requestId": .string(requestId), "reason": .string(reason)])
                throw HTTPProblem.unavailable("the signature could not be recorded, so none was issued; retry later")
            }
        }
    }
}

/// A 403 `not_eligible` with every failed criterion.
struct NotEligible {
    let decision: EligibilityDecision

    var problem: HTTPProblem {
        let criteria = decision.reasons.map(\.criterion).joined(separator: ", ")
        return HTTPProblem(status: 403, code: "not_eligible", title: "Not eligible",
                           detail: "the user is not eligible for this offer (failed: \(criteria))",
                           extensions: ["reasons": decision.reasons])
    }
}
