import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The auditor's routes: issued signatures, verification, integrity, checkpoints, offer changes.
struct AuditHandler {
    let dependencies: ServiceDependencies

    /// `GET /v1/audit/signatures`: filtered, cursor-paged, JSON or (with `Accept: text/csv`) CSV.
    func signatures(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let filter = try Self.filter(request.query)
        let limit = try Self.limit(request.query, max: 1000)
        let after = try PageCursor.decode(request.query["cursor"])
        let entries = try dependencies.signatures.signatures(matching: filter, afterSequence: after, limit: limit)
        let next = entries.count == limit ? entries.last.map { PageCursor.encode($0.sequence) } : nil
        if request.headers["Accept"]?.lowercased().contains("text/csv") == true {
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
        guard let entry = try dependencies.signatures.signature(nonce: nonce) else {
            throw HTTPProblem.notFound("no signature with nonce '\(nonce)' was issued here")
        }
        return try HTTPResponse.json(SignatureRecordDocument(entry: entry))
    }

    struct VerifyRequest: Decodable {
        let bundleId: String
        let keyIdentifier: String
        let productId: String
        let offerId: String
        let appAccountToken: String
        let nonce: String
        let timestamp: Int64
        let signature: String
    }

    struct VerifyResponse: Encodable {
        let validSignature: Bool
        let issuedHere: Bool
        let record: SignatureRecordDocument?

        enum Keys: String, CodingKey { case validSignature, issuedHere, record }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(validSignature, forKey: .validSignature)
            try c.encode(issuedHere, forKey: .issuedHere)
            try c.encode(record, forKey: .record)
        }
    }

    /// `POST /v1/audit/verify`: is this legacy signature valid under one of the app's keys
    /// (active or not), and is it the one this service logged for that nonce?
    func verify(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let body = try request.decodeJSON(VerifyRequest.self)
        let offer = PromotionalOfferRequest(
            bundleId: body.bundleId, keyIdentifier: body.keyIdentifier, productId: body.productId, offerId: body.offerId,
            appAccountToken: body.appAccountToken, nonce: body.nonce, timestamp: body.timestamp)
        let key = dependencies.keyRing.current.apps[body.bundleId]?.keys.first { $0.keyId == body.keyIdentifier }
        let der = Data(base64Encoded: body.signature).map(Array.init) ?? []
        let valid = key.map { $0.publicKey.isValidSignature(derSignature: der, of: offer.legacyPayload) } ?? false
        let entry = try dependencies.signatures.signature(nonce: body.nonce.lowercased())
        let issuedHere = entry.map { logged in
            let r = logged.record
            return r.format == .legacy && r.bundleId == body.bundleId && r.keyId == body.keyIdentifier
                && r.productId == body.productId && r.offerId == body.offerId && r.userId == body.appAccountToken.lowercased()
                && r.timestamp == body.timestamp && r.signature == body.signature
        } ?? false
        return try HTTPResponse.json(VerifyResponse(validSignature: valid, issuedHere: issuedHere, record: entry.map(SignatureRecordDocument.init)))
    }

    /// `GET /v1/audit/offer-changes`: every change to offer rules, oldest first, optionally
    /// of one app's offers (`bundleId`) or of offers of one ID (`offerId`).
    func offerChanges(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let limit = try Self.limit(request.query, max: 1000)
        let after = try PageCursor.decode(request.query["cursor"])
        let changes = try dependencies.offers.changes(bundleId: request.query["bundleId"], offerId: request.query["offerId"],
                                                      afterId: after, limit: limit)
        let next = changes.count == limit ? changes.last.map { PageCursor.encode($0.id) } : nil
        return try HTTPResponse.json(Page(items: changes.map(OfferChangeDocument.init), nextCursor: next))
    }

    static func filter(_ query: [String: String]) throws(HTTPProblem) -> SignatureFilter {
        func time(_ name: String) throws(HTTPProblem) -> Int64? {
            guard let text = query[name] else { return nil }
            guard let date = RFC3339.date(from: text) else {
                throw .invalidRequest("'\(name)' must be an RFC 3339 time such as 2026-11-30T05:45:33Z")
            }
            return date.milliseconds
        }
        return SignatureFilter(userId: query["userId"]?.lowercased(), offerId: query["offerId"], productId: query["productId"],
                               bundleId: query["bundleId"], keyId: query["keyId"], fromTimestamp: try time("from"), toTimestamp: try time("to"))
    }

    static func limit(_ query: [String: String], max: Int) throws(HTTPProblem) -> Int {
        guard let text = query["limit"] else { return 100 }
        guard let limit = Int(text), (1...max).contains(limit) else { throw .invalidRequest("'limit' must be 1–\(max)") }
        return limit
    }
}
