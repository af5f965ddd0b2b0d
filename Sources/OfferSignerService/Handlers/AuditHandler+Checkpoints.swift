import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension AuditHandler {
    /// `GET /v1/audit/checkpoints`: the signed checkpoints stored beside the log, oldest first,
    /// cursor-paged, with the audit public key they verify under. Auditors should keep their
    /// own copies (and the key, obtained out of band): whoever can rewrite the database can
    /// delete these.
    func checkpoints(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let limit = try Self.limit(request.query, max: 1000)
        let after = try PageCursor.decode(request.query["cursor"])
        let stored = try checkpoints?.checkpoints(afterId: after, limit: limit) ?? []
        let next = stored.count == limit ? stored.last.map { PageCursor.encode($0.id) } : nil
        let key = keyRing.current.auditKey.map { AuditKeyDocument(keyId: $0.keyId, publicKeyPEM: $0.publicKey.pem) }
        return try HTTPResponse.json(CheckpointPage(items: stored.map(\.checkpoint), nextCursor: next, auditKey: key))
    }

    struct AuditKeyDocument: Encodable {
        let keyId: String
        let publicKeyPEM: String
    }

    struct CheckpointPage: Encodable {
        let items: [AuditCheckpoint]
        let nextCursor: String?
        let auditKey: AuditKeyDocument?

        enum Keys: String, CodingKey { case items, nextCursor, auditKey }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(items, forKey: .items)
            try c.encode(nextCursor, forKey: .nextCursor)
            try c.encode(auditKey, forKey: .auditKey)
        }
    }
}
