import Foundation
import OfferSignerCore

/// The events the stores write into the outbox, each made from what its transaction commits.
/// Users are named by the IDs the app gave (app account tokens) or Apple's transaction IDs;
/// no event carries a signature, a proof or a secret.
enum WebhookEvents {
    /// `offer.signed`: a record appended to the signature log (its signature left out). The log's
    /// writer hands the outbox ``SignedEvent``, the same document written directly.
    static func signed(_ logged: LoggedSignature, id: String = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID())) -> WebhookEvent {
        let r = logged.record
        var data: [String: JSONValue] = [
            "sequence": .int(Int(logged.sequence)), "nonce": .string(r.nonce), "format": .string(r.format.rawValue),
            "productId": .string(r.productId), "offerId": .string(r.offerId), "userId": .string(r.userId),
            "transactionId": r.transactionId.map(JSONValue.string) ?? .null, "keyId": .string(r.keyId),
            "source": .string(r.source.rawValue), "apiKeyName": .string(r.apiKeyName), "requestId": .string(r.requestId),
        ]
        if let allow = r.allowIntroductoryOffer { data["allowIntroductoryOffer"] = .bool(allow) }
        return WebhookEvent(id: id, type: .offerSigned, occurredAt: Date(milliseconds: r.timestamp), bundleId: r.bundleId, environment: nil,
                            orderingKey: userKey(userId: r.userId, transactionId: r.transactionId), data: data)
    }

    /// `consent.rescinded` or `consent.cleared`.
    static func consent(_ event: ConsentEvent) -> WebhookEvent {
        var data: [String: JSONValue] = ["appTransactionId": .string(event.appTransactionId)]
        switch event.action {
        case .rescind:
            data["notificationUUID"] = event.notificationUUID.map(JSONValue.string) ?? .null
        case .clear:
            data["actor"] = event.actor.map(JSONValue.string) ?? .null
            data["reason"] = event.reason.map(JSONValue.string) ?? .null
        }
        return WebhookEvent(type: event.action == .rescind ? .consentRescinded : .consentCleared, occurredAt: event.at,
                            bundleId: event.bundleId, environment: event.environment.rawValue,
                            orderingKey: "appTransaction:" + event.appTransactionId, data: data)
    }

    /// `redemption.matched` or `redemption.unmatched`.
    static func redemption(_ record: RedemptionRecord) -> WebhookEvent {
        var data = redemptionData(record)
        data["signatureNonce"] = record.signatureNonce.map(JSONValue.string) ?? .null
        data["managed"] = .bool(record.managed)
        return WebhookEvent(type: record.matched ? .redemptionMatched : .redemptionUnmatched, occurredAt: record.run.purchaseDate,
                            bundleId: record.run.bundleId, environment: record.run.environment.rawValue,
                            orderingKey: redemptionKey(record), data: data)
    }

    /// `outcome.changed`: the redemption's outcome went from `previous` (nil: first found) to `outcome`.
    static func outcomeChanged(_ record: RedemptionRecord, from previous: RedemptionOutcome?, to outcome: RedemptionOutcome,
                               at now: Date) -> WebhookEvent {
        var data = redemptionData(record)
        data["outcome"] = .string(outcome.rawValue)
        data["previousOutcome"] = previous.map { JSONValue.string($0.rawValue) } ?? .null
        return WebhookEvent(type: .outcomeChanged, occurredAt: now, bundleId: record.run.bundleId,
                            environment: record.run.environment.rawValue, orderingKey: redemptionKey(record), data: data)
    }

    /// `appAccountToken.linked`.
    static func linked(_ link: AppAccountTokenLink) -> WebhookEvent {
        WebhookEvent(type: .appAccountTokenLinked, occurredAt: link.at, bundleId: link.bundleId, environment: link.environment.rawValue,
                     orderingKey: link.appAccountToken,
                     data: ["originalTransactionId": .string(link.originalTransactionId), "userId": .string(link.appAccountToken),
                            "actor": .string(link.actor), "forced": .bool(link.forced)])
    }

    /// `chain.integrity_failed`: the log ends at `end`, before the entry `committed` known to have been committed.
    static func chainRegressed(end: Int64, committed: Int64) -> WebhookEvent {
        WebhookEvent(type: .chainIntegrityFailed, occurredAt: Date(), bundleId: nil, environment: nil, orderingKey: "signature-chain",
                     data: ["firstBadSequence": .int(Int(end + 1)),
                            "problem": .string("chain_regressed: the signature log ends at entry \(end), before entry \(committed) that was committed")])
    }

    /// `experiment.started` when `experiment` enters `running` (from `before`), `experiment.stopped`
    /// when it leaves it for `stopped` (with the winner, if any); nil for any other change.
    static func experiment(_ experiment: Experiment, before: ExperimentStatus?, by actor: String, at now: Date) -> WebhookEvent? {
        let type: WebhookEventType
        switch (before, experiment.status) {
        case (let old, .running) where old != .running: type = .experimentStarted
        case (.running, .stopped): type = .experimentStopped
        default: return nil
        }
        let winner = experiment.winner.flatMap { id in experiment.arms.first { $0.armId == id } }
        let data: [String: JSONValue] = [
            "experimentId": .string(experiment.experimentId), "placementId": .string(experiment.definition.placement),
            "status": .string(experiment.status.rawValue), "metric": .string(experiment.definition.metric.rawValue),
            "horizonDays": .int(experiment.definition.horizonDays),
            "arms": .array(experiment.arms.map { arm in
                .dictionary(["armId": .string(arm.armId), "offerId": arm.offerId.map(JSONValue.string) ?? .null, "weight": .double(arm.weight)])
            }),
            "startedAt": experiment.startedAt.map { .string(RFC3339.string(from: $0)) } ?? .null,
            "stoppedAt": experiment.stoppedAt.map { .string(RFC3339.string(from: $0)) } ?? .null,
            "winner": experiment.winner.map(JSONValue.string) ?? .null,
            "winnerOfferId": winner?.offerId.map(JSONValue.string) ?? .null,
            "actor": .string(actor),
        ]
        return WebhookEvent(type: type, occurredAt: now, bundleId: experiment.bundleId, environment: nil,
                            orderingKey: "experiment:" + experiment.experimentId, data: data)
    }

    private static func redemptionData(_ record: RedemptionRecord) -> [String: JSONValue] {
        let run = record.run
        return ["offerId": run.offerIdentifier.map(JSONValue.string) ?? .null, "offerType": .string(run.offerType == .winBackOffer ? "winBack" : "promotional"),
                "transactionId": .string(run.transactionId), "originalTransactionId": .string(run.originalTransactionId),
                "userId": run.appAccountToken.map(JSONValue.string) ?? .null,
                "redeemedAt": .string(RFC3339.string(from: run.purchaseDate))]
    }

    private static func redemptionKey(_ record: RedemptionRecord) -> String {
        record.run.appAccountToken ?? ("subscription:" + record.run.originalTransactionId)
    }

    /// The ordering key of a user: their user ID, or the proven subscription of a token-less one.
    static func userKey(userId: String, transactionId: String?) -> String {
        userId.isEmpty ? "transaction:" + (transactionId ?? "") : userId
    }
}
