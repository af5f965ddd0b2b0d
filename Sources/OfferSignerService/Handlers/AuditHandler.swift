import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The auditor's routes: issued signatures, verification, integrity, checkpoints, offer changes.
struct AuditHandler {
    let keyRing: KeyRing
    let signatures: any SignatureLog
    let offers: any OfferStore
    let checkpoints: (any CheckpointStore)?
    /// Signs checkpoints while the service runs (nil: it does not).
    let checkpointer: AuditCheckpointer?
    /// Bounds the integrity walks running at once.
    let integrityRuns: ConcurrencyGate
    /// Counts the integrity walks that found the chain broken.
    let metrics: Metrics
    /// Where a failed integrity check is announced (nil: nowhere).
    var webhooks: (any WebhookStore)? = nil

    /// `GET /v1/audit/signatures`: filtered, cursor-paged, JSON or (with `Accept: text/csv`) CSV.
    func signatures(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let filter = try Self.filter(request.query)
        let page = try PageRequest(request.query)
        let entries = try signatures.signatures(matching: filter, afterSequence: page.after, limit: page.limit)
        let next = page.nextCursor(after: entries, position: \.sequence)
        if request.prefers("text/csv", over: "application/json") {
            var text = CSV.row(SignatureRecordDocument.csvHeader)
            for entry in entries { text += CSV.row(SignatureRecordDocument(entry: entry).csvFields) }
            var response = HTTPResponse.text(text, contentType: "text/csv; charset=utf-8")
            if let next { response.headers.set("X-Next-Cursor", next) }
            return response
        }
        return try HTTPResponse.json(Page(items: entries.map(SignatureRecordDocument.init), nextCursor: next))
    }

    /// `GET /v1/audit/signatures/{nonce}`.
    func signature(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let nonce = (try context.parameters.require("nonce")).lowercased()
        guard let entry = try signatures.signature(nonce: nonce) else {
            throw HTTPProblem.notFound("no signature with nonce '\(nonce)' was issued here")
        }
        return try HTTPResponse.json(SignatureRecordDocument(entry: entry))
    }

    /// Either `jws` alone (a promotional-offer or introductory-offer eligibility JWS) or the
    /// legacy signature's fields.
    struct VerifyRequest: Decodable {
        let jws: String?
        let bundleId: String?
        let keyIdentifier: String?
        let productId: String?
        let offerId: String?
        let appAccountToken: String?
        let nonce: String?
        let timestamp: Int64?
        let signature: String?

        /// The legacy fields, all of them, or a refusal naming what is missing or extra.
        func legacy() throws(HTTPProblem) -> (offer: PromotionalOfferRequest, signature: String) {
            let fields: [(String, Any?)] = [
                ("bundleId", bundleId), ("keyIdentifier", keyIdentifier), ("productId", productId), ("offerId", offerId),
                ("appAccountToken", appAccountToken), ("nonce", nonce), ("timestamp", timestamp), ("signature", signature),
            ]
            if jws != nil {
                let extra = fields.filter { $0.1 != nil }.map(\.0)
                guard extra.isEmpty else {
                    throw .invalidRequest("send either 'jws' alone or the legacy signature's fields, not both (\(extra.joined(separator: ", ")))")
                }
            }
            guard let bundleId, let keyIdentifier, let productId, let offerId, let appAccountToken, let nonce, let timestamp,
                  let signature else {
                let missing = fields.filter { $0.1 == nil }.map(\.0)
                throw .invalidRequest("a legacy signature needs \(missing.joined(separator: ", ")) (or send 'jws' alone)")
            }
            return (PromotionalOfferRequest(bundleId: bundleId, keyIdentifier: keyIdentifier, productId: productId, offerId: offerId,
                                            appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp), signature)
        }
    }

    struct VerifyResponse: Encodable {
        let validSignature: Bool
        let issuedHere: Bool
        @EncodedAsNull var record: SignatureRecordDocument?
    }

    /// `POST /v1/audit/verify`: is this signature valid under one of the app's keys (active or
    /// not), and is it the one this service logged for that nonce? A legacy signature is given
    /// by its fields; a JWS (promotional offer or introductory-offer eligibility) as `jws`.
    func verify(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let body = try request.decodeJSON(VerifyRequest.self)
        if let jws = body.jws, body.bundleId == nil, body.keyIdentifier == nil, body.productId == nil, body.offerId == nil,
           body.appAccountToken == nil, body.nonce == nil, body.timestamp == nil, body.signature == nil {
            return try verifyJWS(jws)
        }
        let (offer, signature) = try body.legacy()
        let key = keyRing.current.apps[offer.bundleId]?.keys.first { $0.keyId == offer.keyIdentifier }
        let der = Data(base64Encoded: signature).map(Array.init) ?? []
        let valid = key.map { $0.publicKey.isValidSignature(derSignature: der, of: offer.legacyPayload) } ?? false
        let entry = try signatures.signature(nonce: offer.nonce.lowercased())
        let issuedHere = entry.map { logged in
            let r = logged.record
            return r.format == .legacy && r.bundleId == offer.bundleId && r.keyId == offer.keyIdentifier
                && r.productId == offer.productId && r.offerId == offer.offerId && r.userId == offer.appAccountToken.lowercased()
                && r.timestamp == offer.timestamp && r.signature == signature
        } ?? false
        return try HTTPResponse.json(VerifyResponse(validSignature: valid, issuedHere: issuedHere, record: entry.map(SignatureRecordDocument.init)))
    }

    /// A JWS: valid when its ES256 signature verifies under the key its `kid` names in the app
    /// its `bid` names; issued here when the log's record of its nonce holds exactly this JWS.
    /// Text that is not such a JWS is simply not valid.
    private func verifyJWS(_ text: String) throws -> HTTPResponse {
        guard let jws = ServerSignedJWS(text) else {
            return try HTTPResponse.json(VerifyResponse(validSignature: false, issuedHere: false, record: nil))
        }
        let key = keyRing.current.apps[jws.claims.bid]?.keys.first { $0.keyId == jws.header.kid }
        let valid = key.map { jws.isValid(under: $0.publicKey) } ?? false
        let entry = try signatures.signature(nonce: jws.claims.nonce.lowercased())
        let issuedHere = entry.map { $0.record.signature == text && $0.record.format == jws.format } ?? false
        return try HTTPResponse.json(VerifyResponse(validSignature: valid, issuedHere: issuedHere, record: entry.map(SignatureRecordDocument.init)))
    }

    /// `GET /v1/audit/offer-changes`: every change to offer rules, oldest first, optionally
    /// of one app's offers (`bundleId`) or of offers of one ID (`offerId`).
    func offerChanges(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try offers.changes(bundleId: request.query["bundleId"], offerId: request.query["offerId"],
                                         afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }

    static func filter(_ query: [String: String]) throws(HTTPProblem) -> SignatureFilter {
        func time(_ name: String) throws(HTTPProblem) -> Int64? {
            guard let text = query[name] else { return nil }
            guard let date = RFC3339.date(from: text) else {
                throw .invalidRequest("'\(name)' must be an RFC 3339 time such as 2026-11-30T05:45:33Z")
            }
            return date.milliseconds
        }
        var source: SignatureSource?
        if let name = query["source"] {
            guard let named = SignatureSource(rawValue: name) else { throw .invalidRequest("'source' must be api or retention") }
            source = named
        }
        var format: SignatureFormat?
        if let name = query["format"] {
            guard let named = SignatureFormat(rawValue: name) else {
                throw .invalidRequest("'format' must be legacy, jws or introductory-offer-eligibility")
            }
            format = named
        }
        return SignatureFilter(userId: query["userId"].map(UserIdFolding.folded), offerId: query["offerId"], productId: query["productId"],
                               bundleId: query["bundleId"], keyId: query["keyId"], source: source, format: format,
                               fromTimestamp: try time("from"), toTimestamp: try time("to"))
    }
}

extension AuditHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/audit/signatures", policy: .roles([.auditor]),
                   query: ["userId", "offerId", "productId", "bundleId", "keyId", "source", "format", "from", "to", "limit", "cursor"],
                   handler: signatures(_:_:))
        router.add("GET", "/v1/audit/signatures/{nonce}", policy: .roles([.auditor]), handler: signature(_:_:))
        router.add("POST", "/v1/audit/verify", policy: .roles([.auditor]), handler: verify(_:_:))
        router.add("GET", "/v1/audit/integrity", policy: .roles([.auditor]), query: ["signatures"], handler: integrity(_:_:))
        router.add("GET", "/v1/audit/checkpoints", policy: .roles([.auditor]), query: ["limit", "cursor"], handler: checkpoints(_:_:))
        router.add("GET", "/v1/audit/offer-changes", policy: .roles([.auditor]), query: ["offerId", "bundleId", "limit", "cursor"],
                   handler: offerChanges(_:_:))
    }
}
