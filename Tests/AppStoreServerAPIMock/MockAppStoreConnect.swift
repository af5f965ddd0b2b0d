import Foundation
import Synchronization

/// A request the mock App Store Connect received.
public struct MockConnectRequest: Sendable {
    public var request: MockHTTPRequest
    /// The token's claims, nil when it was refused.
    public var claims: MockAppStoreConnectJWT.Claims?
    /// Why the token was refused.
    public var refusal: String?
}

/// Apple's App Store Connect API for the catalog, in memory, shaped as Apple's OpenAPI
/// specification has it (JSON:API `data`, `included`, `links.next`; `errors[]` with `status`,
/// `code`, `title`, `detail`): apps by `filter[bundleId]` (a prefix match, as Apple's filter
/// may be), subscription groups, subscriptions, promotional offers and their prices with
/// price points and territories, introductory offers, win-back offers, offer codes, price
/// points by `filter[territory]` and their `/equalizations`; and promotional offers created,
/// re-priced and deleted (`POST`, `PATCH`, `DELETE /v1/subscriptionPromotionalOffers`), their
/// bodies checked exactly against the specification's request schemas
/// (``MockConnectOfferBody``) and Apple's rules (10 offers, unique codes, price points of the
/// subscription in each price's territory, none in a free trial). Every answer carries
/// `X-Rate-Limit`; every request's JWT is checked (ES256 signature, `kid`, `iss`, `aud`,
/// `exp` at most 20 minutes ahead), and a listing's next page is served only for the exact
/// query its `links.next` named.
public final class MockAppStoreConnect: Sendable {
    struct State {
        var apps: [MockConnectApp] = []
        var faults: [(pathContains: String, fault: MockConnectFault)] = []
        var requests: [MockConnectRequest] = []
        var cursors: [String: (path: String, query: [String], offset: Int)] = [:]
        var hourlyRemaining = 3600
        var baseURL = ""
        var nextOfferId = 7_190_000_001
    }

    public let jwt: MockAppStoreConnectJWT
    /// Items per page at most, whatever `limit` asks.
    public let pageSize: Int
    let state = Mutex(State())

    /// Currencies of the territories the mock knows.
    public static let currencies = ["USA": "USD", "GBR": "GBP", "FRA": "EUR", "DEU": "EUR", "JPN": "JPY", "CAN": "CAD"]

    public init(jwt: MockAppStoreConnectJWT, pageSize: Int = 2) {
        self.jwt = jwt
        self.pageSize = pageSize
    }

    public func add(_ app: MockConnectApp) { state.withLock { $0.apps.append(app) } }
    /// Replaces the app with `app`'s ID.
    public func replace(_ app: MockConnectApp) {
        state.withLock { state in
            state.apps = state.apps.map { $0.id == app.id ? app : $0 }
        }
    }
    /// The app with this bundle ID, as the mock holds it now.
    public func app(bundleId: String) -> MockConnectApp? { state.withLock { $0.apps.first { $0.bundleId == bundleId } } }
    /// Queues `fault` for the first request whose path contains `pathContains` (answered once).
    public func inject(_ fault: MockConnectFault, pathContains: String = "") {
        state.withLock { $0.faults.append((pathContains, fault)) }
    }
    /// Sets the `user-hour-rem` of the next answer (each request spends one).
    public func setHourlyRemaining(_ remaining: Int) { state.withLock { $0.hourlyRemaining = remaining } }
    public var requests: [MockConnectRequest] { state.withLock { $0.requests } }
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Starts a real HTTP server on 127.0.0.1 answering as this mock.
    public func start() throws -> MockHTTPServer {
        let server = try MockHTTPServer { [self] request in respond(to: request) }
        state.withLock { $0.baseURL = server.baseURL }
        return server
    }

    public func respond(to request: MockHTTPRequest) -> MockHTTPResponse {
        let checked = jwt.check(authorization: request.authorization, now: Date())
        let claims = try? checked.get()
        let refusal: String? = if case .failure(let error) = checked { error.description } else { nil }
        let (fault, remaining): (MockConnectFault?, Int) = state.withLock { state in
            state.requests.append(MockConnectRequest(request: request, claims: claims, refusal: refusal))
            state.hourlyRemaining = max(0, state.hourlyRemaining - 1)
            guard claims != nil, let index = state.faults.firstIndex(where: { request.path.contains($0.pathContains) }) else {
                return (nil, state.hourlyRemaining)
            }
            return (state.faults.remove(at: index).fault, state.hourlyRemaining)
        }
        var response = answer(request, claims: claims, refusal: refusal, fault: fault)
        response.headers.append(("X-Rate-Limit", "user-hour-lim:3600;user-hour-rem:\(remaining);"))
        return response
    }

    private func answer(_ request: MockHTTPRequest, claims: MockAppStoreConnectJWT.Claims?, refusal: String?,
                        fault: MockConnectFault?) -> MockHTTPResponse {
        guard claims != nil else {
            return Self.error(401, code: "NOT_AUTHORIZED", title: "Authentication credentials are missing or invalid.",
                              detail: "Provide a properly configured and signed bearer token, and make sure that it has not expired. (\(refusal ?? ""))")
        }
        switch fault {
        case .rateLimited?:
            return Self.error(429, code: "RATE_LIMIT_EXCEEDED", title: "The request rate limit has been reached.",
                              detail: "We've received too many requests for this API. Please wait and try again or slow down your request rate.")
        case .serverError(let status)?:
            return Self.error(status, code: "UNEXPECTED_ERROR", title: "An unexpected error occurred.",
                              detail: "An unexpected error occurred on the server side. If this issue continues, contact us.")
        case .error(let status, let code, let title, let detail)?:
            return Self.error(status, code: code, title: title, detail: detail)
        case .body(let text)?:
            return MockHTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
        case .lostAnswer(let status)?:
            _ = route(request)
            return Self.error(status, code: "UNEXPECTED_ERROR", title: "An unexpected error occurred.",
                              detail: "An unexpected error occurred on the server side. If this issue continues, contact us.")
        case nil:
            return route(request)
        }
    }

    /// The answer to `request` with no fault.
    private func route(_ request: MockHTTPRequest) -> MockHTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.first == "v1" else { return Self.notFound(request.path) }
        switch (request.method, parts.count) {
        case ("GET", 2) where parts[1] == "apps": return apps(request)
        case ("GET", 4) where parts[1] == "apps" && parts[3] == "subscriptionGroups": return groups(appId: parts[2], request)
        case ("GET", 4) where parts[1] == "subscriptionGroups" && parts[3] == "subscriptions": return subscriptions(groupId: parts[2], request)
        case ("GET", 4) where parts[1] == "subscriptions": return subscriptionRelated(parts[2], parts[3], request)
        case ("GET", 4) where parts[1] == "subscriptionPromotionalOffers" && parts[3] == "prices": return offerPrices(parts[2], request)
        case ("GET", 4) where parts[1] == "subscriptionPricePoints" && parts[3] == "equalizations": return equalizations(parts[2], request)
        case ("POST", 2) where parts[1] == "subscriptionPromotionalOffers": return createOffer(request)
        case ("PATCH", 3) where parts[1] == "subscriptionPromotionalOffers": return updateOffer(parts[2], request)
        case ("DELETE", 3) where parts[1] == "subscriptionPromotionalOffers": return deleteOffer(parts[2], request)
        default: return Self.notFound(request.path)
        }
    }

    // MARK: Resources

    private func apps(_ request: MockHTTPRequest) -> MockHTTPResponse {
        let prefix = request.queryValue("filter[bundleId]") ?? ""
        let apps = state.withLock { $0.apps }.filter { $0.bundleId.hasPrefix(prefix) }
        return page(request, apps.map { app in
            (["type": "apps", "id": app.id,
              "attributes": ["name": app.name, "bundleId": app.bundleId, "sku": app.bundleId.uppercased(), "primaryLocale": "en-US"],
              "relationships": ["subscriptionGroups": ["links": ["related": "\(base)/v1/apps/\(app.id)/subscriptionGroups"]]],
              "links": ["self": "\(base)/v1/apps/\(app.id)"]] as [String: Any], [])
        })
    }

    private func groups(appId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let app = state.withLock({ $0.apps.first { $0.id == appId } }) else { return Self.notFound(request.path) }
        return page(request, app.groups.map { group in
            (["type": "subscriptionGroups", "id": group.id, "attributes": ["referenceName": group.referenceName],
              "links": ["self": "\(base)/v1/subscriptionGroups/\(group.id)"]] as [String: Any], [])
        })
    }

    private func subscriptions(groupId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let group = state.withLock({ $0.apps.flatMap(\.groups).first { $0.id == groupId } }) else { return Self.notFound(request.path) }
        return page(request, group.subscriptions.map { subscription in
            (["type": "subscriptions", "id": subscription.id,
              "attributes": ["name": subscription.name, "productId": subscription.productId, "familySharable": false,
                             "state": subscription.state, "subscriptionPeriod": subscription.subscriptionPeriod,
                             "reviewNote": NSNull(), "groupLevel": subscription.groupLevel],
              "relationships": ["group": ["data": ["type": "subscriptionGroups", "id": group.id]]],
              "links": ["self": "\(base)/v1/subscriptions/\(subscription.id)"]] as [String: Any], [])
        })
    }

    private func subscription(_ id: String) -> MockConnectSubscription? {
        state.withLock { $0.apps.flatMap(\.groups).flatMap(\.subscriptions).first { $0.id == id } }
    }

    private func subscriptionRelated(_ id: String, _ relation: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let subscription = subscription(id) else { return Self.notFound(request.path) }
        let includes = Set((request.queryValue("include") ?? "").split(separator: ",").map(String.init))
        switch relation {
        case "promotionalOffers":
            return page(request, subscription.promotionalOffers.map { offer in
                (["type": "subscriptionPromotionalOffers", "id": offer.id,
                  "attributes": ["name": offer.name, "offerCode": offer.offerCode, "duration": offer.duration, "offerMode": offer.offerMode,
                                 "numberOfPeriods": offer.numberOfPeriods],
                  "relationships": ["prices": ["links": ["related": "\(base)/v1/subscriptionPromotionalOffers/\(offer.id)/prices"]]]]
                    as [String: Any], [])
            })
        case "introductoryOffers":
            return page(request, subscription.introductoryOffers.map { offer in
                var relationships: [String: Any] = ["territory": ["data": ["type": "territories", "id": offer.territory]]]
                var included: [[String: Any]] = includes.contains("territory") ? [Self.territory(offer.territory)] : []
                if let pointId = offer.pricePointId {
                    relationships["subscriptionPricePoint"] = ["data": ["type": "subscriptionPricePoints", "id": pointId]]
                    if includes.contains("subscriptionPricePoint"), let point = subscription.pricePoints.first(where: { $0.id == pointId }) {
                        included.append(Self.pricePoint(point))
                    }
                }
                return (["type": "subscriptionIntroductoryOffers", "id": offer.id,
                         "attributes": ["duration": offer.duration, "offerMode": offer.offerMode, "numberOfPeriods": offer.numberOfPeriods,
                                        "startDate": NSNull(), "endDate": NSNull()],
                         "relationships": relationships] as [String: Any], included)
            })
        case "winBackOffers":
            return page(request, subscription.winBackOffers.map { offer in
                var attributes: [String: Any] = [
                    "referenceName": offer.referenceName, "offerId": offer.offerId, "duration": offer.duration, "offerMode": offer.offerMode,
                    "periodCount": offer.periodCount, "customerEligibilityPaidSubscriptionDurationInMonths": offer.paidMonths,
                    "customerEligibilityTimeSinceLastSubscribedInMonths": ["minimum": offer.sinceLastSubscribed.lowerBound,
                                                                           "maximum": offer.sinceLastSubscribed.upperBound],
                    "startDate": offer.startDate, "endDate": NSNull(), "priority": offer.priority, "promotionIntent": "NOT_PROMOTED",
                ]
                attributes["customerEligibilityWaitBetweenOffersInMonths"] = offer.waitBetweenOffersMonths.map { $0 as Any } ?? NSNull()
                return (["type": "winBackOffers", "id": offer.id, "attributes": attributes] as [String: Any], [])
            })
        case "offerCodes":
            return page(request, subscription.offerCodes.map { code in
                (["type": "subscriptionOfferCodes", "id": code.id,
                  "attributes": ["name": code.name, "customerEligibilities": code.customerEligibilities,
                                 "offerEligibility": code.offerEligibility, "duration": code.duration, "offerMode": code.offerMode,
                                 "numberOfPeriods": code.numberOfPeriods, "totalNumberOfCodes": 1000, "active": code.active]]
                    as [String: Any], [])
            })
        case "prices":
            return page(request, subscription.prices.compactMap { price in
                guard let point = subscription.pricePoints.first(where: { $0.id == price.pricePointId }) else { return nil }
                var included: [[String: Any]] = includes.contains("territory") ? [Self.territory(point.territory)] : []
                if includes.contains("subscriptionPricePoint") { included.append(Self.pricePoint(point)) }
                return (["type": "subscriptionPrices", "id": price.id,
                         "attributes": ["startDate": price.startDate.map { $0 as Any } ?? NSNull(), "preserved": false],
                         "relationships": ["territory": ["data": ["type": "territories", "id": point.territory]],
                                           "subscriptionPricePoint": ["data": ["type": "subscriptionPricePoints", "id": point.id]]]]
                            as [String: Any], included)
            })
        case "pricePoints":
            let territories = request.queryValue("filter[territory]").map { Set($0.split(separator: ",").map(String.init)) }
            let points = subscription.pricePoints.filter { territories?.contains($0.territory) ?? true }
            return page(request, points.map { point in
                (Self.pricePoint(point), includes.contains("territory") ? [Self.territory(point.territory)] : [])
            })
        default:
            return Self.notFound(request.path)
        }
    }

    private func offerPrices(_ offerId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        let found = state.withLock { state in
            state.apps.flatMap(\.groups).flatMap(\.subscriptions).lazy.compactMap { subscription in
                subscription.promotionalOffers.first { $0.id == offerId }.map { (subscription, $0) }
            }.first
        }
        guard let found else { return Self.notFound(request.path) }
        let (subscription, offer) = found
        let includes = Set((request.queryValue("include") ?? "").split(separator: ",").map(String.init))
        return page(request, offer.prices.enumerated().map { index, price in
            var relationships: [String: Any] = ["territory": ["data": ["type": "territories", "id": price.territory]]]
            var included: [[String: Any]] = includes.contains("territory") ? [Self.territory(price.territory)] : []
            if let pointId = price.pricePointId {
                relationships["subscriptionPricePoint"] = ["data": ["type": "subscriptionPricePoints", "id": pointId]]
                if includes.contains("subscriptionPricePoint"), let point = subscription.pricePoints.first(where: { $0.id == pointId }) {
                    included.append(Self.pricePoint(point))
                }
            }
            return (["type": "subscriptionPromotionalOfferPrices", "id": "\(offer.id)-\(index)", "relationships": relationships]
                        as [String: Any], included)
        })
    }

    private func equalizations(_ pointId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        let points = state.withLock { $0.apps.flatMap(\.groups).flatMap(\.subscriptions).flatMap(\.pricePoints) }
        guard let point = points.first(where: { $0.id == pointId }) else { return Self.notFound(request.path) }
        let territories = request.queryValue("filter[territory]").map { Set($0.split(separator: ",").map(String.init)) }
        let includes = Set((request.queryValue("include") ?? "").split(separator: ",").map(String.init))
        let equal = point.equalizations.compactMap { id in points.first { $0.id == id } }
            .filter { territories?.contains($0.territory) ?? true }
        return page(request, equal.map { (Self.pricePoint($0), includes.contains("territory") ? [Self.territory($0.territory)] : []) })
    }

    // MARK: Paging

    var base: String { state.withLock { $0.baseURL } }

    /// One page of `items` (each with its included resources): the first, or the one `cursor`
    /// names, which must come with exactly the query its `links.next` had.
    func page(_ request: MockHTTPRequest, _ items: [([String: Any], [[String: Any]])]) -> MockHTTPResponse {
        let query = request.query.filter { $0.name != "cursor" }.map { "\($0.name)=\($0.value)" }
        let limit = request.queryValue("limit").flatMap(Int.init) ?? 50
        guard (1...200).contains(limit) else {
            return Self.error(400, code: "PARAMETER_ERROR.INVALID", title: "A parameter has an invalid value",
                              detail: "'\(request.queryValue("limit") ?? "")' is not a valid value for 'limit'")
        }
        let size = min(limit, pageSize)
        var offset = 0
        if let cursor = request.queryValue("cursor") {
            guard let known = state.withLock({ $0.cursors[cursor] }), known.path == request.path, known.query == query else {
                return Self.error(400, code: "PARAMETER_ERROR.INVALID", title: "A parameter has an invalid value",
                                  detail: "'cursor' does not name a page of this request")
            }
            offset = known.offset
        }
        let end = min(offset + size, items.count)
        let slice = items[min(offset, end)..<end]
        var included: [[String: Any]] = []
        var seen = Set<String>()
        for resource in slice.flatMap(\.1) where seen.insert("\(resource["type"]!)/\(resource["id"]!)").inserted {
            included.append(resource)
        }
        var selfLink = base + request.path
        if !request.query.isEmpty { selfLink += "?" + Self.encoded(request.query) }
        var links: [String: Any] = ["self": selfLink]
        if end < items.count {
            let cursor = Data("\(end).\(UUID().uuidString.prefix(8))".utf8).base64EncodedString()
                .replacingOccurrences(of: "=", with: "")
            state.withLock { $0.cursors[cursor] = (request.path, query, end) }
            links["next"] = base + request.path + "?" + Self.encoded(request.query.filter { $0.name != "cursor" } + [("cursor", cursor)])
        }
        var document: [String: Any] = ["data": slice.map(\.0), "links": links,
                                       "meta": ["paging": ["total": items.count, "limit": size]]]
        if !included.isEmpty { document["included"] = included }
        return .json(200, document)
    }

    private static func encoded(_ pairs: [(name: String, value: String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { pair in
            (pair.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (pair.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }

    static func territory(_ id: String) -> [String: Any] {
        ["type": "territories", "id": id, "attributes": ["currency": currencies[id] ?? "USD"]]
    }

    static func pricePoint(_ point: MockConnectPricePoint) -> [String: Any] {
        ["type": "subscriptionPricePoints", "id": point.id,
         "attributes": ["customerPrice": point.customerPrice, "proceeds": point.proceeds, "proceedsYear2": point.proceeds],
         "relationships": ["territory": ["data": ["type": "territories", "id": point.territory]]]]
    }

    /// Apple's error answer: `{"errors": [{"id", "status", "code", "title", "detail"}]}`.
    public static func error(_ status: Int, code: String, title: String, detail: String) -> MockHTTPResponse {
        .json(status, ["errors": [["id": UUID().uuidString, "status": String(status), "code": code, "title": title, "detail": detail]]])
    }

    static func notFound(_ path: String) -> MockHTTPResponse {
        error(404, code: "NOT_FOUND", title: "The specified resource does not exist",
              detail: "The path provided does not match a defined resource type. (\(path))")
    }
}
