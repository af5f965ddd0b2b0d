import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET/PUT/DELETE /v1/admin/offers/{offerId}` and `GET /v1/admin/offers`.
struct OfferAdminHandler {
    let dependencies: ServiceDependencies

    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offers = try dependencies.offers.offers().map(OfferDocument.init)
        return try HTTPResponse.json(["offers": offers])
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        guard let offer = try dependencies.offers.offer(id: offerId) else {
            throw HTTPProblem.notFound("no offer '\(offerId)'")
        }
        return try HTTPResponse.json(OfferDocument(offer))
    }

    func put(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        let rule = try request.decodeJSON(OfferRule.self)
        try validate(rule, offerId: offerId)
        let existed = try dependencies.offers.offer(id: offerId) != nil
        let stored = try dependencies.offers.put(rule, by: context.callerName, at: dependencies.clock.now)
        return try HTTPResponse.json(OfferDocument(stored), status: existed ? 200 : 201)
    }

    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let offerId = try context.parameters.require("offerId")
        guard let stored = try dependencies.offers.disable(id: offerId, by: context.callerName, at: dependencies.clock.now) else {
            throw HTTPProblem.notFound("no offer '\(offerId)'")
        }
        return try HTTPResponse.json(OfferDocument(stored))
    }

    /// Refuses a rule that cannot be right, naming every fault.
    func validate(_ rule: OfferRule, offerId: String) throws(HTTPProblem) {
        var problems = rule.validationProblems()
        if rule.offerId != offerId {
            problems.insert("'offerId' in the body ('\(rule.offerId)') differs from the offer ID in the path ('\(offerId)')", at: 0)
        }
        if dependencies.keyRing.current.apps[rule.bundleId] == nil {
            problems.append("no app with bundleId '\(rule.bundleId)' is configured")
        }
        guard problems.isEmpty else {
            throw HTTPProblem(status: 400, code: "invalid_request", title: "Invalid request",
                              detail: problems.joined(separator: "; "), extensions: ["errors": problems])
        }
    }
}

/// An offer rule as the admin API returns it: the rule with `createdAt`, `updatedAt`, `version`.
struct OfferDocument: Encodable {
    let offer: StoredOffer

    init(_ offer: StoredOffer) {
        self.offer = offer
    }

    enum Keys: String, CodingKey { case createdAt, updatedAt, version }

    func encode(to encoder: any Encoder) throws {
        try offer.rule.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(offer.createdAt, forKey: .createdAt)
        try container.encode(offer.updatedAt, forKey: .updatedAt)
        try container.encode(offer.version, forKey: .version)
    }
}
