import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The admin routes of one kind of managed rule (retention rules, introductory-offer rules),
/// in the shape of the offer routes: `GET /v1/admin/<kind>` (`?bundleId=`), `GET`, `PUT` and
/// `DELETE` (which disables) of `/v1/admin/<kind>/{ruleId}`, one rule's change history
/// (`/v1/admin/<kind>/{ruleId}/changes`), and the auditor's history of every change.
/// A rule belongs to an app, named as offers name theirs (`bundleId` in a `PUT` body,
/// `?bundleId=` otherwise, optional when one app is configured).
struct RuleAdminHandler<Rule: ManagedRule> {
    let keyRing: KeyRing
    let rules: any RuleStore
    let offers: any OfferStore
    let clock: WallClock
    /// What the rule's kind is called in messages ("retention rule").
    let noun: String
    /// The rule's kind in its routes' paths: `/v1/admin/<path>s`, `/v1/audit/<path>-changes`.
    let path: String
    /// Faults a rule can only be checked for against the rest of the configuration (a
    /// retention rule's offer must exist).
    let configurationProblems: @Sendable (Rule, any OfferStore) throws -> [String]
    /// The name of the rule's ID, in its routes' paths and its messages (`ruleId`, `placementId`).
    var identifier: String { Rule.identifierKey }
    /// Where a body that leaves its ID out finds the path's (nil: the body must name it).
    var defaultIdentifierKey: CodingUserInfoKey?
    /// What a rule that is saved should be warned of (a retention rule's message that Apple
    /// has not approved): the answer carries them in `warnings`.
    var warnings: @Sendable (Rule) -> [String] = { _ in [] }

    func list(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let rules = try rules.rules(Rule.self, bundleId: request.query["bundleId"])
        return try HTTPResponse.json([Rule.collectionKey: rules.map { RuleDocument($0) }])
    }

    func get(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let ruleId = try context.parameters.require(identifier)
        let bundleId = try OfferAdminHandler.app(request, keyRing)
        guard let stored = try rules.rule(Rule.self, bundleId: bundleId, ruleId: ruleId) else {
            throw HTTPProblem.notFound("no \(noun) '\(ruleId)' is configured for \(bundleId)")
        }
        return try HTTPResponse.json(RuleDocument(stored))
    }

    /// Creates or replaces the rule of the body's app (or of the only app).
    func put(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let ruleId = try context.parameters.require(identifier)
        let configuration = keyRing.current
        let rule = try request.decodeRule(Rule.self, configuration, defaults: defaultIdentifierKey.map { [$0: ruleId] } ?? [:])
        var problems = rule.validationProblems()
        if rule.ruleId != ruleId {
            problems.insert("'\(identifier)' in the body ('\(rule.ruleId)') differs from the \(identifier == "ruleId" ? "rule" : noun) ID in the path ('\(ruleId)')", at: 0)
        }
        if configuration.apps[rule.bundleId] == nil {
            problems.append("no app with bundleId '\(rule.bundleId)' is configured")
        } else if problems.isEmpty {
            problems += try configurationProblems(rule, offers)
        }
        guard problems.isEmpty else { throw HTTPProblem.invalidRequest(listing: problems) }
        let existed = try rules.rule(Rule.self, bundleId: rule.bundleId, ruleId: ruleId) != nil
        let stored = try rules.put(rule, by: context.callerName, at: clock.now)
        return try HTTPResponse.json(RuleDocument(stored, warnings: warnings(rule)), status: existed ? 200 : 201)
    }

    /// Disables the rule, keeping it and its history.
    func delete(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let ruleId = try context.parameters.require(identifier)
        let bundleId = try OfferAdminHandler.app(request, keyRing)
        guard let stored = try rules.disable(Rule.self, bundleId: bundleId, ruleId: ruleId, by: context.callerName,
                                                          at: clock.now) else {
            throw HTTPProblem.notFound("no \(noun) '\(ruleId)' is configured for \(bundleId)")
        }
        return try HTTPResponse.json(RuleDocument(stored))
    }

    /// Every change to rules of this kind, oldest first (`?bundleId=`, `?<identifier>=`, paged).
    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try changesPage(request, bundleId: request.query["bundleId"], ruleId: request.query[identifier])
    }

    /// `GET /v1/admin/<kind>/{ruleId}/changes?bundleId=`: one rule's change history, oldest
    /// first, paged like the audit trail's, for the people who make the changes (as offers have).
    func ruleChanges(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let ruleId = try context.parameters.require(identifier)
        let bundleId = try OfferAdminHandler.app(request, keyRing)
        guard try rules.rule(Rule.self, bundleId: bundleId, ruleId: ruleId) != nil else {
            throw HTTPProblem.notFound("no \(noun) '\(ruleId)' is configured for \(bundleId)")
        }
        return try changesPage(request, bundleId: bundleId, ruleId: ruleId)
    }

    private func changesPage(_ request: HTTPRequest, bundleId: String?, ruleId: String?) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try rules.changes(Rule.self, bundleId: bundleId, ruleId: ruleId, afterId: page.after, limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }
}

extension RuleAdminHandler where Rule == RetentionRule {
    /// Retention rules: a rule's `offerId` must be one of the app's offer rules; a rule whose
    /// messages Apple has not approved is saved with a warning (`messaging` nil: none).
    static func retention(keyRing: KeyRing, rules: any RuleStore, offers: any OfferStore, clock: WallClock,
                          messaging: RetentionMessaging? = nil) -> RuleAdminHandler {
        var handler = RuleAdminHandler(keyRing: keyRing, rules: rules, offers: offers, clock: clock, noun: "retention rule",
                                       path: "retention-rule") { rule, offers in
            guard let offerId = rule.offerId, try offers.offer(bundleId: rule.bundleId, offerId: offerId) == nil else {
                return []
            }
            return ["'offerId' names no offer of \(rule.bundleId): no offer '\(offerId)' is configured"]
        }
        if let messaging {
            handler.warnings = { rule in
                guard rule.enabled else { return [] }
                let messages = [rule.messageIdentifier] + (rule.fallbackMessageIdentifier.map { [$0] } ?? [])
                return messaging.approvalWarnings(bundleId: rule.bundleId, messageIdentifiers: messages)
            }
        }
        return handler
    }
}

extension RuleAdminHandler where Rule == IntroductoryOfferRule {
    /// Introductory-offer rules.
    static func introductoryOffer(keyRing: KeyRing, rules: any RuleStore, offers: any OfferStore,
                                  clock: WallClock) -> RuleAdminHandler {
        RuleAdminHandler(keyRing: keyRing, rules: rules, offers: offers, clock: clock, noun: "introductory-offer rule",
                         path: "introductory-offer-rule") { _, _ in [] }
    }
}

extension RuleAdminHandler where Rule == Placement {
    /// Placements: every offer a placement lists must be one of the app's offer rules; the
    /// body may leave `placementId` out (the path names it).
    static func placement(keyRing: KeyRing, rules: any RuleStore, offers: any OfferStore, clock: WallClock) -> RuleAdminHandler {
        var handler = RuleAdminHandler(keyRing: keyRing, rules: rules, offers: offers, clock: clock, noun: "placement",
                                       path: "placement") { placement, offers in
            try placement.offerIds.enumerated().compactMap { index, offerId in
                try offers.offer(bundleId: placement.bundleId, offerId: offerId) == nil
                    ? "'offerIds[\(index)]' names no offer of \(placement.bundleId): no offer '\(offerId)' is configured" : nil
            }
        }
        handler.defaultIdentifierKey = Placement.defaultPlacementIdKey
        return handler
    }
}

extension RuleAdminHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        let rules = "/v1/admin/\(path)s"
        router.add("GET", rules, policy: .roles([.marketing]), query: ["bundleId"], handler: list(_:_:))
        let rule = "\(rules)/{\(identifier)}"
        router.add("GET", rule, policy: .roles([.marketing]), query: ["bundleId"], handler: get(_:_:))
        router.add("PUT", rule, policy: .roles([.marketing]), handler: put(_:_:))
        router.add("DELETE", rule, policy: .roles([.marketing]), query: ["bundleId"], handler: delete(_:_:))
        router.add("GET", "\(rule)/changes", policy: .roles([.marketing]), query: ["bundleId", "limit", "cursor"],
                   handler: ruleChanges(_:_:))
        router.add("GET", "/v1/audit/\(path)-changes", policy: .roles([.auditor]), query: [identifier, "bundleId", "limit", "cursor"],
                   handler: changes(_:_:))
    }
}
