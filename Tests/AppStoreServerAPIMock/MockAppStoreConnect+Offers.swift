import Foundation

/// Writing promotional offers: `POST /v1/subscriptionPromotionalOffers` (201),
/// `PATCH /v1/subscriptionPromotionalOffers/{id}` (200) and `DELETE …/{id}` (204), as Apple's
/// specification has them, with Apple's rules: at most 10 offers per subscription, an offer
/// code unique per subscription, every price in a distinct territory with a price point of the
/// subscription in that territory, none in a free trial.
extension MockAppStoreConnect {
    /// The most promotional offers a subscription may have.
    public static let maxPromotionalOffers = 10

    func createOffer(_ request: MockHTTPRequest) -> MockHTTPResponse {
        if let refusal = Self.jsonContentType(request) { return refusal }
        let body: MockConnectOfferBody
        switch MockConnectOfferBody.create(request.body) {
        case .success(let parsed): body = parsed
        case .failure(let error): return Self.invalidBody(error.description)
        }
        let outcome: Result<(MockConnectPromotionalOffer, String), MockHTTPResponseError> = state.withLock { state in
            guard let path = Self.subscriptionPath(body.subscriptionId ?? "", in: state.apps) else {
                return .failure(.init(Self.error(404, code: "NOT_FOUND", title: "The specified resource does not exist",
                                                 detail: "There is no resource of type 'subscriptions' with id '\(body.subscriptionId ?? "")'")))
            }
            let subscription = state.apps[path.app].groups[path.group].subscriptions[path.subscription]
            if subscription.promotionalOffers.contains(where: { $0.offerCode == body.offerCode }) {
                return .failure(.init(Self.error(409, code: "ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE", title: "The provided entity includes an attribute with a value that has already been used",
                                                 detail: "The offer code '\(body.offerCode ?? "")' has already been used for this subscription.")))
            }
            if subscription.promotionalOffers.count >= Self.maxPromotionalOffers {
                return .failure(.init(Self.error(409, code: "ENTITY_ERROR.RELATIONSHIP.INVALID", title: "The provided entity includes a relationship with an invalid value",
                                                 detail: "A subscription can have at most \(Self.maxPromotionalOffers) active promotional offers.")))
            }
            if let refusal = Self.priceRefusal(body.prices, free: body.offerMode == "FREE_TRIAL", subscription) {
                return .failure(.init(refusal))
            }
            let id = String(state.nextOfferId)
            state.nextOfferId += 1
            let offer = MockConnectPromotionalOffer(id: id, offerCode: body.offerCode!, name: body.name!, duration: body.duration!,
                                                    offerMode: body.offerMode!, numberOfPeriods: body.numberOfPeriods!,
                                                    prices: body.prices.map { ($0.territory, $0.pricePointId) })
            state.apps[path.app].groups[path.group].subscriptions[path.subscription].promotionalOffers.append(offer)
            return .success((offer, subscription.id))
        }
        switch outcome {
        case .failure(let error): return error.response
        case .success(let (offer, subscriptionId)): return .json(201, offerDocument(offer, subscriptionId: subscriptionId))
        }
    }

    func updateOffer(_ id: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        if let refusal = Self.jsonContentType(request) { return refusal }
        let body: MockConnectOfferBody
        switch MockConnectOfferBody.update(request.body) {
        case .success(let parsed): body = parsed
        case .failure(let error): return Self.invalidBody(error.description)
        }
        guard body.id == id else {
            return Self.error(409, code: "ENTITY_ERROR.ID.INVALID", title: "The provided entity id is invalid",
                              detail: "The resource id '\(body.id ?? "")' does not match the id '\(id)' in the URL")
        }
        let outcome: Result<(MockConnectPromotionalOffer, String), MockHTTPResponseError> = state.withLock { state in
            guard let path = Self.offerPath(id, in: state.apps) else { return .failure(.init(Self.notFound("/v1/subscriptionPromotionalOffers/\(id)"))) }
            let subscription = state.apps[path.app].groups[path.group].subscriptions[path.subscription]
            var offer = subscription.promotionalOffers[path.offer]
            if let refusal = Self.priceRefusal(body.prices, free: offer.offerMode == "FREE_TRIAL", subscription) {
                return .failure(.init(refusal))
            }
            offer.prices = body.prices.map { ($0.territory, $0.pricePointId) }
            state.apps[path.app].groups[path.group].subscriptions[path.subscription].promotionalOffers[path.offer] = offer
            return .success((offer, subscription.id))
        }
        switch outcome {
        case .failure(let error): return error.response
        case .success(let (offer, subscriptionId)): return .json(200, offerDocument(offer, subscriptionId: subscriptionId))
        }
    }

    func deleteOffer(_ id: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard request.body.isEmpty else { return Self.invalidBody("a DELETE has no body") }
        let deleted: Bool = state.withLock { state in
            guard let path = Self.offerPath(id, in: state.apps) else { return false }
            state.apps[path.app].groups[path.group].subscriptions[path.subscription].promotionalOffers.remove(at: path.offer)
            return true
        }
        return deleted ? MockHTTPResponse(status: 204) : Self.notFound(request.path)
    }

    // MARK: Rules

    /// Why Apple refuses these prices for the subscription, or nil.
    static func priceRefusal(_ prices: [MockConnectOfferBody.Price], free: Bool, _ subscription: MockConnectSubscription) -> MockHTTPResponse? {
        func refuse(_ detail: String) -> MockHTTPResponse {
            error(409, code: "ENTITY_ERROR.RELATIONSHIP.INVALID", title: "The provided entity includes a relationship with an invalid value",
                  detail: detail)
        }
        guard !prices.isEmpty else { return refuse("A promotional offer needs at least one price.") }
        guard Set(prices.map(\.territory)).count == prices.count else { return refuse("A territory has more than one price.") }
        for price in prices {
            guard currencies[price.territory] != nil else { return refuse("'\(price.territory)' is not a territory.") }
            switch (free, price.pricePointId) {
            case (true, nil): continue
            case (true, _?): return refuse("A free trial's prices have no price point.")
            case (false, nil): return refuse("The price in \(price.territory) has no subscriptionPricePoint.")
            case (false, let pointId?):
                guard let point = subscription.pricePoints.first(where: { $0.id == pointId }), point.territory == price.territory else {
                    return refuse("'\(pointId)' is not a price point of this subscription in \(price.territory).")
                }
            }
        }
        return nil
    }

    static func jsonContentType(_ request: MockHTTPRequest) -> MockHTTPResponse? {
        guard request.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else {
            return error(415, code: "UNSUPPORTED_MEDIA_TYPE", title: "The request entity has an unsupported media type",
                         detail: "Content-Type must be application/json")
        }
        return nil
    }

    static func invalidBody(_ detail: String) -> MockHTTPResponse {
        error(400, code: "ENTITY_INVALID", title: "The request entity is invalid", detail: detail)
    }

    func offerDocument(_ offer: MockConnectPromotionalOffer, subscriptionId: String) -> [String: Any] {
        let link = "\(base)/v1/subscriptionPromotionalOffers/\(offer.id)"
        return ["data": ["type": "subscriptionPromotionalOffers", "id": offer.id,
                         "attributes": ["name": offer.name, "offerCode": offer.offerCode, "duration": offer.duration,
                                        "offerMode": offer.offerMode, "numberOfPeriods": offer.numberOfPeriods],
                         "relationships": ["subscription": ["data": ["type": "subscriptions", "id": subscriptionId]],
                                           "prices": ["links": ["self": "\(link)/relationships/prices", "related": "\(link)/prices"]]],
                         "links": ["self": link]] as [String: Any],
                "links": ["self": link]]
    }

    static func subscriptionPath(_ id: String, in apps: [MockConnectApp]) -> (app: Int, group: Int, subscription: Int)? {
        for (a, app) in apps.enumerated() {
            for (g, group) in app.groups.enumerated() {
                if let s = group.subscriptions.firstIndex(where: { $0.id == id }) { return (a, g, s) }
            }
        }
        return nil
    }

    static func offerPath(_ id: String, in apps: [MockConnectApp]) -> (app: Int, group: Int, subscription: Int, offer: Int)? {
        for (a, app) in apps.enumerated() {
            for (g, group) in app.groups.enumerated() {
                for (s, subscription) in group.subscriptions.enumerated() {
                    if let o = subscription.promotionalOffers.firstIndex(where: { $0.id == id }) { return (a, g, s, o) }
                }
            }
        }
        return nil
    }
}

/// A response carried out of a lock as an error.
struct MockHTTPResponseError: Error {
    let response: MockHTTPResponse
    init(_ response: MockHTTPResponse) { self.response = response }
}
