import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension AuditHandler {
    /// `GET /v1/audit/integrity[?signatures=true]`: walks the hash chain, holds it to the newest
    /// stored checkpoint and the newest this process signed (when an audit key is configured),
    /// and with `signatures=true` checks every record's signature against the app's keys. At
    /// most `integrityRuns.limit` walks run at once; more are answered 503 at once. A walk that
    /// finds the log not intact is counted (`offer_signer_chain_integrity_failures_total{check="walk"}`).
    func integrity(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let checkSignatures = try Self.flag(request.query, "signatures")
        let gate = integrityRuns
        guard let response = try gate.ifOpen({ try integrityResponse(checkSignatures: checkSignatures) }) else {
            throw HTTPProblem(status: 503, code: "unavailable", title: "Service unavailable",
                              detail: "\(gate.limit) integrity checks are running already; retry when one has finished",
                              headers: ["Retry-After": "10"])
        }
        return response
    }

    private func integrityResponse(checkSignatures: Bool) throws -> HTTPResponse {
        let configuration = keyRing.current
        let auditKeys = configuration.auditKey.map { [$0.publicKey] } ?? []
        let checkpoints = auditKeys.isEmpty ? [] : [try checkpoints?.latest(), checkpointer?.latest].compactMap { $0 }
        let check = IntegrityCheck(checkpoints: checkpoints, auditKeys: auditKeys, signatureKeys: checkSignatures ? configuration : nil,
                                   webhooks: webhooks)
        let outcome = try check.run(signatures)
        if !outcome.report.ok { metrics.recordChainIntegrityFailure(.walk) }
        return try HTTPResponse.json(IntegrityResponse(outcome: outcome, checkpointsChecked: !auditKeys.isEmpty))
    }

    /// `name=true` or `name=false` (absent: false).
    static func flag(_ query: [String: String], _ name: String) throws(HTTPProblem) -> Bool {
        switch query[name] {
        case nil, "false": return false
        case "true": return true
        default: throw .invalidRequest("'\(name)' must be true or false")
        }
    }

    struct IntegrityResponse: Encodable {
        let outcome: IntegrityCheck.Outcome
        /// False when no audit key is configured, so no checkpoint could be checked.
        let checkpointsChecked: Bool

        enum Keys: String, CodingKey {
            case ok, records, firstBadRecord, firstBadSequence, problem, gaps, checkpoints, signaturesChecked
        }

        func encode(to encoder: any Encoder) throws {
            let report = outcome.report
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(report.ok, forKey: .ok)
            try c.encode(report.records, forKey: .records)
            try c.encode(report.firstBadRecord.map(SignatureRecordDocument.init), forKey: .firstBadRecord)
            try c.encode(report.firstBadSequence, forKey: .firstBadSequence)
            try c.encode(report.problem, forKey: .problem)
            try c.encode(report.gaps.map(ChainGapDocument.init), forKey: .gaps)
            try c.encode(checkpointsChecked ? CheckpointSummary(outcome: outcome) : nil, forKey: .checkpoints)
            try c.encode(report.signaturesChecked, forKey: .signaturesChecked)
        }
    }

    struct CheckpointSummary: Encodable {
        let checked: Int
        let matched: Int
        let inGaps: Int
        let invalid: Int

        init(outcome: IntegrityCheck.Outcome) {
            checked = outcome.checkpointsGiven
            matched = outcome.report.checkpointsMatched
            inGaps = outcome.report.checkpointsInGaps
            invalid = outcome.checkpointsInvalid.count
        }
    }
}

/// An accepted gap in the chain as the audit API shows it.
struct ChainGapDocument: Encodable {
    let gap: ChainGap

    enum Keys: String, CodingKey { case sequence, lostFrom, lostThrough, lostThroughHash, resumedAfter, acceptedBy, acceptedAt, reason, hash }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(gap.sequence, forKey: .sequence)
        try c.encode(gap.lostFrom, forKey: .lostFrom)
        try c.encode(gap.lostThrough?.sequence, forKey: .lostThrough)
        try c.encode(gap.lostThrough?.hash, forKey: .lostThroughHash)
        try c.encode(gap.resumedAfter.sequence, forKey: .resumedAfter)
        try c.encode(gap.acceptedBy, forKey: .acceptedBy)
        try c.encode(Date(milliseconds: gap.acceptedAt), forKey: .acceptedAt)
        try c.encode(gap.reason, forKey: .reason)
        try c.encode(gap.hash, forKey: .hash)
    }
}
