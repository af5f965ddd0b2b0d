import Foundation
import Testing
@testable import OfferSignerHTTP

@Suite("Router and middleware")
struct RouterTests {
    func router() -> Router {
        var builder = RouterBuilder()
        builder.use(RequestIdMiddleware())
        builder.use(ContentTypeMiddleware())
        builder.add("GET", "/v1/things/{id}") { _, context in
            .text("thing \(context.parameters["id"] ?? "")")
        }
        builder.add("PUT", "/v1/things/{id}", maxBodyBytes: 10) { request, _ in
            .text("stored \(request.body.count) bytes")
        }
        builder.add("GET", "/v1/boom") { _, _ in throw CocoaError(.fileNoSuchFile) }
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
        #expect(String(decoding: response.body, as: UTF8.self) == "thing abc")
    }

    @Test("unknown path is 404 and wrong method is 405 with Allow, as problem documents")
    func notFoundAndMethod() throws {
        let notFound = router().respond(to: HTTPRequest(method: "GET", path: "/v2/nothing"))
        #expect(notFound.status == 404)
        #expect(try problem(notFound)["code"] as? String == "not_found")
        let wrongMethod = router().respond(to: HTTPRequest(method: "DELETE", path: "/v1/things/abc"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, PUT")
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

    @Test("HOST:PORT parsing")
    func listen() {
        #expect(HTTPServerConfiguration.parseListen("127.0.0.1:8080")! == ("127.0.0.1", 8080))
        #expect(HTTPServerConfiguration.parseListen("[::1]:9000")! == ("::1", 9000))
        #expect(HTTPServerConfiguration.parseListen("0.0.0.0:70000") == nil)
        #expect(HTTPServerConfiguration.parseListen("localhost") == nil)
    }
}

@Suite("RFC 3339 times")
struct RFC3339Tests {
    @Test("formatting matches Foundation's ISO 8601 style, fractions dropped; parsing takes offsets and fractions")
    func roundTrip() {
        for seconds in [0.0, 1_796_020_928.797, 951_782_400, 4_102_444_799.999, -1] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.string(from: date) == Date(timeIntervalSince1970: seconds.rounded(.down)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt)))
        }
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_796_020_928)) == "2026-11-30T06:42:08Z")
        #expect(RFC3339.date(from: "2026-11-30T07:42:08+01:00") == Date(timeIntervalSince1970: 1_796_020_928))
        #expect(RFC3339.date(from: "2026-11-30T06:42:08.500Z") == Date(timeIntervalSince1970: 1_796_020_928.5))
        #expect(RFC3339.date(from: "yesterday") == nil)
    }
}
