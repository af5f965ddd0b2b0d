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
        let page = try PageRequest(request.query)
        let stored = try checkpoints?.checkpoints(afterId: page.after, limit: page.limit) ?? []
        let key = keyRing.current.auditKey.map { AuditKeyDocument(keyId: $0.keyId, publicKeyPEM: $0.publicKey.pem) }
        return try HTTPResponse.json(CheckpointPage(page: page.page(stored, position: \.id, \.checkpoint), auditKey: key))
    }

    struct AuditKeyDocument: Encodable {
        let keyId: String
        let publicKeyPEM: String
    }

    /// A page of checkpoints with the audit key they verify under.
    struct CheckpointPage: Encodable {
        let page: Page<AuditCheckpoint>
        let auditKey: AuditKeyDocument?

        enum Keys: String, CodingKey { case auditKey }

        func encode(to encoder: any Encoder) throws {
            try page.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(auditKey, forKey: .auditKey)
        }
    }
}
