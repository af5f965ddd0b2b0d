import AppStoreServerAPI
import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The Retention Messaging API from the service: messages, images, default messages per
/// product and locale, the real-time URL and the performance test, each of an app (`?bundleId=`,
/// optional with one app) and an environment (`?environment=`, Production by default), and
/// the auditor's list of every change made through them.
struct RetentionMessagingHandler {
    let keyRing: KeyRing
    let messaging: RetentionMessaging

    /// The app and environment a request is about; the environment is `defaultEnvironment`
    /// unless `?environment=` names one.
    func target(_ request: HTTPRequest, defaultEnvironment: String = "Production") throws -> RetentionMessaging.Target {
        let bundleId = try AppSelection.bundleId(request.query["bundleId"], in: keyRing.current, source: "?bundleId=")
        let environment = request.query["environment"] ?? defaultEnvironment
        guard environment == "Production" || environment == "Sandbox" else {
            throw HTTPProblem.invalidRequest("?environment= must be Production or Sandbox, not '\(environment)'")
        }
        return RetentionMessaging.Target(bundleId: bundleId, environment: environment)
    }

    // MARK: Messages

    /// What a caller uploads: Apple's `UploadMessageRequestBody`.
    struct MessageDocument: Encodable {
        let messageIdentifier: String
        let state: String?
        let message: UploadMessageRequestBody

        enum Keys: String, CodingKey { case messageIdentifier, state }

        func encode(to encoder: any Encoder) throws {
            try message.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(messageIdentifier, forKey: .messageIdentifier)
            try c.encode(state, forKey: .state)
        }
    }

    func putMessage(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let messageId = try context.parameters.require("messageId")
        let target = try target(request)
        let message = try request.decodeJSON(UploadMessageRequestBody.self)
        try messaging.uploadMessage(target, messageIdentifier: messageId, message, by: context.callerName)
        let state: String? = switch messaging.states?.approval(of: messageId, bundleId: target.bundleId, environment: target.environment) {
        case .approved?: "APPROVED"
        case .notApproved(let state)?: state == "MISSING" ? nil : state
        case .unknown?, nil: nil
        }
        return try HTTPResponse.json(MessageDocument(messageIdentifier: messageId, state: state, message: message), status: 201)
    }

    func listMessages(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(Items(items: try messaging.messages(try target(request))))
    }

    func deleteMessage(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let messageId = try context.parameters.require("messageId")
        try messaging.deleteMessage(try target(request), messageIdentifier: messageId, by: context.callerName)
        return try HTTPResponse.json(["messageIdentifier": JSONValue.string(messageId), "deleted": .bool(true)])
    }

    // MARK: Images

    func putImage(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let imageId = try context.parameters.require("imageId")
        let target = try target(request)
        let sizeName = request.query["imageSize"] ?? ImageSize.fullSize.rawValue
        guard let size = ImageSize(rawValue: sizeName) else {
            throw HTTPProblem.invalidRequest("?imageSize= must be FULL_SIZE or BULLET_POINT, not '\(sizeName)'")
        }
        try messaging.uploadImage(target, imageIdentifier: imageId, png: request.body, size: size, by: context.callerName)
        let image = try RetentionImage(png: request.body, size: size)
        return try HTTPResponse.json(ImageDocument(imageIdentifier: imageId, facts: RetentionMessagingRecord.ImageFacts(image, size: size)),
                                     status: 201)
    }

    struct ImageDocument: Encodable {
        let imageIdentifier: String
        let facts: RetentionMessagingRecord.ImageFacts

        enum Keys: String, CodingKey { case imageIdentifier }

        func encode(to encoder: any Encoder) throws {
            try facts.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(imageIdentifier, forKey: .imageIdentifier)
        }
    }

    func listImages(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(Items(items: try messaging.images(try target(request))))
    }

    func deleteImage(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let imageId = try context.parameters.require("imageId")
        try messaging.deleteImage(try target(request), imageIdentifier: imageId, by: context.callerName)
        return try HTTPResponse.json(["imageIdentifier": JSONValue.string(imageId), "deleted": .bool(true)])
    }

    // MARK: Default messages

    struct DefaultBody: Decodable {
        var messageIdentifier: String
    }

    func putDefault(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (productId, locale) = (try context.parameters.require("productId"), try context.parameters.require("locale"))
        let target = try target(request)
        let body = try request.decodeJSON(DefaultBody.self)
        try messaging.configureDefault(target, productId: productId, locale: locale, messageIdentifier: body.messageIdentifier,
                                       by: context.callerName)
        return try HTTPResponse.json(RetentionMessaging.DefaultItem(productId: productId, locale: locale,
                                                                    messageIdentifier: body.messageIdentifier, updatedAt: nil))
    }

    func getDefault(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (productId, locale) = (try context.parameters.require("productId"), try context.parameters.require("locale"))
        return try HTTPResponse.json(try messaging.defaultMessage(try target(request), productId: productId, locale: locale))
    }

    func listDefaults(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(Items(items: try messaging.configuredDefaults(try target(request))))
    }

    func deleteDefault(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let (productId, locale) = (try context.parameters.require("productId"), try context.parameters.require("locale"))
        try messaging.deleteDefault(try target(request), productId: productId, locale: locale, by: context.callerName)
        return try HTTPResponse.json(["productId": JSONValue.string(productId), "locale": .string(locale), "deleted": .bool(true)])
    }

    // MARK: Real-time URL

    func putRealtimeURL(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let target = try target(request)
        let body = try request.decodeJSON(RealtimeURL.self)
        try messaging.configureRealtimeURL(target, body.realtimeURL, by: context.callerName)
        return try HTTPResponse.json(body)
    }

    func getRealtimeURL(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(try messaging.realtimeURL(try target(request)))
    }

    func deleteRealtimeURL(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try messaging.deleteRealtimeURL(try target(request), by: context.callerName)
        return try HTTPResponse.json(["deleted": JSONValue.bool(true)])
    }

    // MARK: Performance test

    /// Apple's performance test is a Sandbox feature: Sandbox unless `?environment=Production` asks otherwise.
    func startPerformanceTest(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let target = try target(request, defaultEnvironment: RetentionMessaging.performanceTestEnvironment)
        let body = try request.decodeJSON(PerformanceTestRequest.self)
        let started = try messaging.startPerformanceTest(target, originalTransactionId: body.originalTransactionId, by: context.callerName)
        return try HTTPResponse.json(started, status: 201)
    }

    func performanceTestResult(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let requestId = try context.parameters.require("requestId")
        return try HTTPResponse.json(try messaging.performanceTestResult(
            try target(request, defaultEnvironment: RetentionMessaging.performanceTestEnvironment), requestId: requestId))
    }

    // MARK: Audit

    /// Every change made through these routes, oldest first (`?bundleId=`, `?ruleId=`, paged).
    func changes(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let page = try PageRequest(request.query)
        let changes = try messaging.changes(bundleId: request.query["bundleId"], ruleId: request.query["ruleId"], afterId: page.after,
                                            limit: page.limit)
        return try HTTPResponse.json(page.page(changes, position: \.id) { RuleChangeDocument($0) })
    }

    struct Items<Item: Encodable>: Encodable {
        let items: [Item]
    }
}

extension RetentionMessagingHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        let target: Set<String> = ["bundleId", "environment"]
        let messages = "/v1/admin/retention-messages"
        router.add("GET", messages, policy: .roles([.marketing, .auditor]), query: target, handler: listMessages(_:_:))
        router.add("PUT", "\(messages)/{messageId}", policy: .roles([.marketing]), query: target, handler: putMessage(_:_:))
        router.add("DELETE", "\(messages)/{messageId}", policy: .roles([.marketing]), query: target, handler: deleteMessage(_:_:))
        let images = "/v1/admin/retention-images"
        router.add("GET", images, policy: .roles([.marketing, .auditor]), query: target, handler: listImages(_:_:))
        router.add("PUT", "\(images)/{imageId}", policy: .roles([.marketing]), query: target.union(["imageSize"]), accepts: ["image/png"],
                   maxBodyBytes: RetentionImage.maxBytes, handler: putImage(_:_:))
        router.add("DELETE", "\(images)/{imageId}", policy: .roles([.marketing]), query: target, handler: deleteImage(_:_:))
        let defaults = "/v1/admin/retention-defaults"
        router.add("GET", defaults, policy: .roles([.marketing, .auditor]), query: target, handler: listDefaults(_:_:))
        router.add("GET", "\(defaults)/{productId}/{locale}", policy: .roles([.marketing, .auditor]), query: target, handler: getDefault(_:_:))
        router.add("PUT", "\(defaults)/{productId}/{locale}", policy: .roles([.marketing]), query: target, handler: putDefault(_:_:))
        router.add("DELETE", "\(defaults)/{productId}/{locale}", policy: .roles([.marketing]), query: target, handler: deleteDefault(_:_:))
        let url = "/v1/admin/retention-realtime-url"
        router.add("GET", url, policy: .roles([.auditor]), query: target, handler: getRealtimeURL(_:_:))
        router.add("PUT", url, policy: .roles([]), query: target, handler: putRealtimeURL(_:_:))
        router.add("DELETE", url, policy: .roles([]), query: target, handler: deleteRealtimeURL(_:_:))
        let tests = "/v1/admin/retention-performance-tests"
        router.add("POST", tests, policy: .roles([]), query: target, handler: startPerformanceTest(_:_:))
        router.add("GET", "\(tests)/{requestId}", policy: .roles([.auditor]), query: target, handler: performanceTestResult(_:_:))
        router.add("GET", "/v1/audit/retention-messaging-changes", policy: .roles([.auditor]), query: ["bundleId", "ruleId", "limit", "cursor"],
                   handler: changes(_:_:))
    }
}
