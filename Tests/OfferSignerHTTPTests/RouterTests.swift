import Foundation
import Testing
@testable import OfferSignerHTTP

@Suite("Router and middleware")
struct RouterTests {
    func router(reported: ErrorLog = ErrorLog()) -> Router<TestContext> {
        var builder = RouterBuilder<TestContext>()
        builder.use(QueryParameterMiddleware())
        builder.use(ContentTypeMiddleware())
        builder.reportUnexpected = { error, _, _ in reported.add(error) }
        builder.add("GET", "/v1/things/{id}", policy: "reader", query: ["expand"]) { _, context in
            HTTPResponse.text("thing \(try context.parameters.require("id")) for \(context.policy ?? "nobody")")
        }
        builder.add("PUT", "/v1/things/{id}", policy: "writer", maxBodyBytes: 10) { request, _ in
            HTTPResponse.text("stored \(request.body.count) bytes")
        }
        builder.add("POST", "/v1/lines", policy: "writer", accepts: ["application/x-ndjson"]) { _, _ in HTTPResponse.text("lines") }
        builder.add("GET", "/v1/boom", policy: "any") { _, _ in throw CocoaError(.fileNoSuchFile) }
        builder.add("GET", "/v1/typo/{id}", policy: "any") { _, context in HTTPResponse.text(try context.parameters.require("name")) }
        builder.add("GET", "/v1/teapot", policy: "any") { _, _ in throw Teapot() }
        return builder.build()
    }

    func problem(_ response: HTTPResponse) throws -> [String: Any] {
        #expect(response.headers["Content-Type"] == "application/problem+json")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("path parameters reach the handler")
    func parameters() {
        let response = router().respond(to: HTTPRequest(method: "GET", path: "/v1/things/abc"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "thing abc for reader")
    }

    @Test("the policy declared with a route reaches the context; a request that matched none has none")
    func policy() {
        #expect(router().routes.map { "\($0.method) \($0.pattern) \($0.policy)" }.first == "GET /v1/things/{id} reader")
        #expect(TestContext.seenPolicies(router(), HTTPRequest(method: "GET", path: "/nowhere")) == [nil])
    }

    @Test("a route takes only the query parameters it declares; a typo is an error, not a filter left out")
    func queryParameters() throws {
        #expect(router().respond(to: HTTPRequest(method: "GET", path: "/v1/things/a", query: ["expand": "1"])).status == 200)
        let typo = router().respond(to: HTTPRequest(method: "GET", path: "/v1/things/a", query: ["expnad": "1"]))
        #expect(typo.status == 400)
        #expect(try problem(typo)["detail"] as? String == "unknown query parameter 'expnad'; this route takes 'expand'")
        #expect(router().respond(to: HTTPRequest(method: "PUT", path: "/v1/things/a", query: ["x": ""])).status == 400)
    }

    @Test("a method the path lacks is 405 whatever body it carries, before any media type check")
    func methodBeforeMediaType() {
        let trace = router().respond(to: HTTPRequest(method: "TRACE", path: "/v1/lines", headers: ["Content-Type": "text/plain"], body: [1]))
        #expect(trace.status == 405)
        let nowhere = router().respond(to: HTTPRequest(method: "POST", path: "/nowhere", query: ["a": "b"], body: [1]))
        #expect(nowhere.status == 404)
    }

    @Test("a route's declared media types are the ones it accepts")
    func mediaTypes() {
        let ndjson = router().respond(to: HTTPRequest(method: "POST", path: "/v1/lines", headers: ["Content-Type": "application/x-ndjson"], body: [1]))
        #expect(ndjson.status == 200)
        let json = router().respond(to: HTTPRequest(method: "POST", path: "/v1/lines", headers: ["Content-Type": "application/json"], body: [1]))
        #expect(json.status == 415)
    }

    @Test("errors become responses at the router's edge: their own answer, or a reported 500")
    func errorBoundary() throws {
        let reported = ErrorLog()
        let teapot = router(reported: reported).respond(to: HTTPRequest(method: "GET", path: "/v1/teapot"))
        #expect(teapot.status == 418)
        #expect(try problem(teapot)["code"] as? String == "teapot")
        #expect(reported.errors.isEmpty)
        let typo = router(reported: reported).respond(to: HTTPRequest(method: "GET", path: "/v1/typo/a"))
        #expect(typo.status == 500)
        #expect(reported.errors.map { "\($0)" } == ["the route pattern has no '{name}' segment"])
    }

    @Test("unknown path is 404 and wrong method is 405 with Allow, as problem documents")
    func notFoundAndMethod() throws {
        let notFound = router().respond(to: HTTPRequest(method: "GET", path: "/v2/nothing"))
        #expect(notFound.status == 404)
        #expect(try problem(notFound)["code"] as? String == "not_found")
        let wrongMethod = router().respond(to: HTTPRequest(method: "DELETE", path: "/v1/things/abc"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, PUT")
        #expect(wrongMethod.headers["X-Request-Id"] != nil)
        let body = try problem(wrongMethod)
        #expect(body["code"] as? String == "method_not_allowed")
        #expect(body["status"] as? Int == 405)
        #expect(body["type"] as? String != nil && body["title"] as? String != nil && body["detail"] as? String != nil)
    }

    @Test("a body over the route's limit is 413; a non-JSON body is 415")
    func bodyRules() throws {
        let tooLarge = router().respond(to: HTTPRequest(method: "PUT", path: "/v1/things/a", bodyExceededLimit: true))
        #expect(tooLarge.status == 413)
        #expect(try problem(tooLarge)["code"] as? String == "payload_too_large")
        #expect(router().bodyPolicy(method: "PUT", path: "/v1/things/a") == BodyPolicy(limit: 10))
        #expect(router().bodyPolicy(method: "GET", path: "/v1/things/a") == BodyPolicy(limit: 64 * 1024))
        let wrongType = router().respond(to: HTTPRequest(method: "PUT", path: "/v1/things/a", headers: ["Content-Type": "text/plain"], body: [1]))
        #expect(wrongType.status == 415)
        #expect(try problem(wrongType)["code"] as? String == "unsupported_media_type")
        let json = router().respond(to: HTTPRequest(method: "PUT", path: "/v1/things/a",
                                                    headers: ["Content-Type": "application/json; charset=utf-8"], body: [1]))
        #expect(json.status == 200)
    }

    @Test("request id: the caller's is echoed, otherwise one is made; also on errors")
    func requestId() {
        let echoed = router().respond(to: HTTPRequest(method: "GET", path: "/v1/things/a", headers: ["x-request-id": "abc-123"]))
        #expect(echoed.headers["X-Request-Id"] == "abc-123")
        let made = router().respond(to: HTTPRequest(method: "GET", path: "/nope"))
        #expect(made.headers["X-Request-Id"]?.count == 36)
        let unsafe = router().respond(to: HTTPRequest(method: "GET", path: "/v1/things/a", headers: ["X-Request-Id": "bad id\n"]))
        #expect(unsafe.headers["X-Request-Id"] != "bad id\n")
    }

    @Test("an unexpected error is a 500 that reveals nothing of its cause")
    func unexpected() throws {
        let response = router().respond(to: HTTPRequest(method: "GET", path: "/v1/boom"))
        #expect(response.status == 500)
        let detail = try problem(response)["detail"] as? String ?? ""
        #expect(!detail.contains("NoSuchFile") && !detail.contains("Cocoa"))
    }
}

/// A context whose route policy is a plain name.
struct TestContext: RequestContext {
    let core: CoreRequestContext
    let policy: String?

    init(core: CoreRequestContext, policy: String?) {
        self.core = core
        self.policy = policy
    }

    /// The policies the handler or the 404 saw for `request`.
    static func seenPolicies(_ router: Router<TestContext>, _ request: HTTPRequest) -> [String?] {
        var builder = RouterBuilder<TestContext>()
        let seen = ErrorLog()
        builder.use(PolicyRecorder(seen: seen))
        builder.add("GET", "/somewhere", policy: "x") { _, _ in HTTPResponse.text("") }
        _ = builder.build().respond(to: request)
        return seen.errors.map { ($0 as? SeenPolicy)?.policy }
    }
}

struct SeenPolicy: Error { let policy: String? }

struct PolicyRecorder: HTTPMiddleware {
    let seen: ErrorLog
    func handle(_ request: HTTPRequest, context: TestContext, next: HTTPResponder<TestContext>) throws -> HTTPResponse {
        seen.add(SeenPolicy(policy: context.policy))
        return try next(request, context)
    }
}

/// An error that knows its answer.
struct Teapot: HTTPResponseError {
    var problem: HTTPProblem { HTTPProblem(status: 418, code: "teapot", title: "Teapot", detail: "short and stout") }
}

/// Errors collected from another thread.
final class ErrorLog: @unchecked Sendable {  // @unchecked: every access holds the lock
    private let lock = NSLock()
    private var collected: [any Error] = []
    func add(_ error: any Error) { lock.withLock { collected.append(error) } }
    var errors: [any Error] { lock.withLock { collected } }
}
