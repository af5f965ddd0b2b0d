import Foundation
import OfferSignerCore
import OfferSignerStore

/// An integrity check of the signature log as the endpoint and `audit verify` run it: the
/// hash chain, then optionally the signed checkpoints it must agree with (each first verified
/// with the audit public key) and every record's own signature against the app's keys.
public struct IntegrityCheck: Sendable {
    /// Checkpoints to hold the chain to.
    public var checkpoints: [AuditCheckpoint]
    /// The audit public keys a checkpoint may be signed with.
    public var auditKeys: [P256PublicKey]
    /// The apps whose keys every record's signature is checked against; nil to skip that check.
    public var signatureKeys: KeyConfiguration?
    /// Where a failed check is announced (`chain.integrity_failed`), nil: nowhere.
    public var webhooks: (any WebhookStore)?

    public init(checkpoints: [AuditCheckpoint] = [], auditKeys: [P256PublicKey] = [], signatureKeys: KeyConfiguration? = nil,
                webhooks: (any WebhookStore)? = nil) {
        self.checkpoints = checkpoints
        self.auditKeys = auditKeys
        self.signatureKeys = signatureKeys
        self.webhooks = webhooks
    }

    /// What the check found.
    public struct Outcome: Sendable {
        /// The walk's report; not ok either when the walk found a fault or when a checkpoint's
        /// signature did not verify.
        public var report: IntegrityReport
        /// Checkpoints given (duplicates counted once).
        public var checkpointsGiven: Int
        /// Checkpoints whose signature is not the audit key's: forged, or of another key.
        public var checkpointsInvalid: [AuditCheckpoint]
    }

    /// Runs the check on `log`.
    public func run(_ log: any SignatureLog) throws -> Outcome {
        let given = Array(Set(checkpoints)).sorted { ($0.sequence, $0.timestamp) < ($1.sequence, $1.timestamp) }
        var valid: [AuditCheckpoint] = []
        var invalid: [AuditCheckpoint] = []
        for checkpoint in given {
            if checkpoint.isValid(underAnyOf: auditKeys) { valid.append(checkpoint) } else { invalid.append(checkpoint) }
        }
        var report = try log.verifyIntegrity(IntegrityOptions(checkpoints: valid.map(\.link), recordCheck: signatureKeys.map(Self.recordCheck)))
        if report.ok, let first = invalid.first {
            report.ok = false
            report.problem = "\(invalid.count) checkpoint(s) are not signed by the audit key (the first vouches for entry \(first.sequence)): forged, or signed with another key"
        }
        if !report.ok, let webhooks, webhooks.isSubscribed(.chainIntegrityFailed) {
            try webhooks.enqueue([Self.failureEvent(report, at: Date())], at: Date())
        }
        return Outcome(report: report, checkpointsGiven: given.count, checkpointsInvalid: invalid)
    }

    /// `chain.integrity_failed`: the first entry at fault and what is wrong with it.
    static func failureEvent(_ report: IntegrityReport, at now: Date) -> WebhookEvent {
        WebhookEvent(type: .chainIntegrityFailed, occurredAt: now, bundleId: nil, environment: nil, orderingKey: "signature-chain", data: [
            "firstBadSequence": report.firstBadSequence.map { .int(Int($0)) } ?? .null,
            "problem": .string(report.problem ?? "the signature log's integrity check failed"),
        ])
    }

    /// Checks a record's signature against the key it names, of the app it names.
    static func recordCheck(_ configuration: KeyConfiguration) -> @Sendable (SignatureRecord) -> String? {
        var keys: [String: [String: P256PublicKey]] = [:]
        for app in configuration.apps.values {
            keys[app.bundleId] = Dictionary(app.keys.map { ($0.keyId, $0.publicKey) }, uniquingKeysWith: { first, _ in first })
        }
        let lookup = keys
        return { record in
            guard let key = lookup[record.bundleId]?[record.keyId] else {
                return "it names key \(record.keyId) of app \(record.bundleId), which the keys file does not hold, so its signature cannot be checked"
            }
            return record.signatureProblem(publicKey: key)
        }
    }
}
