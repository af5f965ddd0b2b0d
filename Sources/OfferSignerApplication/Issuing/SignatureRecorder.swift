import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's last step: signs with the app's active key and returns only once
/// the signature's record is durably in the log (within the offer's daily quota, if any).
/// Every failure of the log is mapped here, once, for every kind of signature.
struct SignatureRecorder: Sendable {
    let signatures: any SignatureLog
    let activity: OfferActivity
    let clock: WallClock
    let metrics: Metrics
    let logger: Logger

    /// The `error` line of a request answered 503 because the log's append failed (with its
    /// `requestId` and the `nonces` of the records it tried to append): read back by
    /// `audit verify --service-log` (``UndeliveredAnswers``).
    static let appendFailedMessage = "signature log append failed; no signature issued"

    /// A fresh nonce: a time-ordered UUID, lowercased.
    func nonce(at now: Date) -> String {
        SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID(now: now))
    }

    /// Signs `offer` in `format` and records it under `quota` (signatures per user and day).
    func sign(_ offer: PromotionalOfferRequest, format: PromotionalOfferFormat, app: AppKeys, quota maxPerDay: Int?,
              requestedBy: String, requestId: String, source: SignatureSource) throws(SignRefusal) -> IssuedOffer {
        let issued = try issue(offer, format: format, app: app, requestId: requestId)
        try record(SignatureRecord(issued, apiKeyName: requestedBy, requestId: requestId, recordedAt: clock.now.milliseconds,
                                   source: source), quota: maxPerDay)
        metrics.recordSignature(bundleId: offer.bundleId, offerId: offer.offerId, format: format.rawValue)
        return issued
    }

    /// Signs `offer` as ``sign(_:format:app:quota:requestedBy:requestId:source:)`` does and
    /// records the user's experiment `assignment` in the same commit as the record; when the
    /// user turned out assigned to another arm meanwhile, nothing is signed and the assignment
    /// that stands is returned. A quota refusal keeps the assignment (eligible, not signed).
    func sign(_ offer: PromotionalOfferRequest, format: PromotionalOfferFormat, app: AppKeys, quota maxPerDay: Int?,
              requestedBy: String, requestId: String, source: SignatureSource,
              assigning assignment: SignedAssignment) throws(SignRefusal) -> AssignedSignature {
        let issued = try issue(offer, format: format, app: app, requestId: requestId)
        let record = SignatureRecord(issued, apiKeyName: requestedBy, requestId: requestId, recordedAt: clock.now.milliseconds,
                                     source: source)
        let newlyAssigned: Bool
        do {
            let quota = maxPerDay.map { SignatureQuota(maxCount: $0) }
            switch try signatures.append(record, quota: quota, assigning: assignment) {
            case .assignedElsewhere(let stored): return .assignedElsewhere(stored)
            case .appended(_, let inserted): newlyAssigned = inserted
            }
        } catch {
            throw refusal(error, requestId: record.requestId, quota: maxPerDay, record: record, nonces: [record.nonce])
        }
        metrics.recordSignature(bundleId: offer.bundleId, offerId: offer.offerId, format: format.rawValue)
        return .signed(issued, newlyAssigned: newlyAssigned)
    }

    /// `offer` signed with the app's active key in `format`.
    private func issue(_ offer: PromotionalOfferRequest, format: PromotionalOfferFormat, app: AppKeys,
                       requestId: String) throws(SignRefusal) -> IssuedOffer {
        do {
            return try app.signer.issue(offer, format: format)
        } catch {
            throw refusal(error, app: app, requestId: requestId)
        }
    }

    /// Signs every one of `eligibilities` (one customer's introductory-offer answers: one
    /// product, or a store page) and appends their records in one commit (no quota: an answer
    /// is given, allowed or not, every time it is asked); none is returned unless all are durable.
    func sign(all eligibilities: [IntroductoryOfferEligibility], userId: String, app: AppKeys, requestedBy: String,
              requestId: String) throws(SignRefusal) -> [IssuedIntroductoryOfferEligibility] {
        var issued: [IssuedIntroductoryOfferEligibility] = []
        issued.reserveCapacity(eligibilities.count)
        do {
            for eligibility in eligibilities { issued.append(try app.signer.issue(eligibility)) }
        } catch {
            throw refusal(error, app: app, requestId: requestId)
        }
        let recordedAt = clock.now.milliseconds
        let records = issued.map {
            SignatureRecord($0, userId: userId, apiKeyName: requestedBy, requestId: requestId, recordedAt: recordedAt)
        }
        do {
            _ = try signatures.append(all: records)
        } catch {
            throw refusal(error, requestId: requestId, quota: nil, record: records[0], nonces: records.map(\.nonce))
        }
        for eligibility in eligibilities {
            metrics.recordSignature(bundleId: eligibility.bundleId, offerId: "", format: SignatureFormat.introductoryOfferEligibility.rawValue)
        }
        return issued
    }

    /// A signing failure as a refusal; a hardware module that cannot sign is logged (its reason
    /// names the module's error, never the PIN) and answered 503.
    private func refusal(_ error: PromotionalOfferSigningError, app: AppKeys, requestId: String) -> SignRefusal {
        let bundleId = app.bundleId
        if case .keyUnavailable(let reason) = error {
            logger.log(.error, "the signing key's module could not sign; no signature issued", [
                "requestId": .string(requestId), "bundleId": .string(bundleId), "keyId": .string(app.activeKey.keyId),
                "reason": .string(reason),
            ])
        }
        return switch error {
        case .missingIssuerId: .jwsUnavailable(bundleId: bundleId)
        case .openSSL: .internalFailure(error)
        case .keyUnavailable(let reason): .signingKeyUnavailable(reason: reason)
        }
    }

    /// Appends `record`, within the quota of `maxPerDay` records per user and offer (of the app).
    private func record(_ record: SignatureRecord, quota maxPerDay: Int?) throws(SignRefusal) {
        do {
            _ = try signatures.append(record, quota: maxPerDay.map { SignatureQuota(maxCount: $0) })
        } catch {
            throw refusal(error, requestId: record.requestId, quota: maxPerDay, record: record, nonces: [record.nonce])
        }
    }

    /// The refusal for the log's `error` appending `record` (or a page of records like it, whose
    /// nonces are `nonces`).
    private func refusal(_ error: SignatureLogError, requestId: String, quota maxPerDay: Int?, record: SignatureRecord,
                         nonces: [String]) -> SignRefusal {
        switch error {
        case .quotaExceeded(let seconds):
            activity.recordRefusal(OfferKey(bundleId: record.bundleId, offerId: record.offerId),
                                   criteria: ["maxSignaturesPerUserPerDay"], at: Date(milliseconds: record.recordedAt))
            return .quotaExceeded(offerId: record.offerId, maxCount: maxPerDay ?? 0, retryAfterSeconds: seconds)
        case .unavailable(let reason):
            // The nonces: a commit whose outcome was unknown may have stored the records after all.
            logger.log(.error, Self.appendFailedMessage,
                       ["requestId": .string(requestId), "nonces": .array(nonces.map(JSONValue.string)), "reason": .string(reason)])
            return .logUnavailable(reason: reason)
        case .endMismatch(let mismatch) where mismatch.isTruncation:
            metrics.recordChainRegressed()
            logger.log(.error, "SIGNATURE LOG WENT BACKWARDS (chain_regressed): TAMPERED or lost its tail, it ends before an entry "
                       + "known to be committed (records cut off, a failover to a standby that lacked them, an old backup restored); "
                       + "no signature is issued until an operator runs `offer-signer audit accept-truncation` "
                       + "(see README, High availability)",
                       ["requestId": .string(requestId), "chainEnd": .int(Int(mismatch.last.sequence)),
                        "committedThrough": .int(Int(mismatch.lostThrough?.sequence ?? mismatch.last.sequence)),
                        "reason": .string(mismatch.description)])
            return .chainRegressed(mismatch)
        case .endMismatch(let mismatch):
            metrics.recordChainIntegrityFailure(.append)
            logger.log(.error, "SIGNATURE LOG TAMPERED: it does not end where its last commit recorded it; "
                       + "no signature is issued until an operator restores it from a backup or runs "
                       + "`offer-signer audit accept-truncation` (see README, Audits)",
                       ["requestId": .string(requestId), "reason": .string(mismatch.description)])
            return .logUnavailable(reason: mismatch.description)
        }
    }
}
