@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
import Synchronization
@testable import OfferSignerService
import Testing

/// The Retention Messaging routes against the mock of Apple's API (which checks every request's
/// JWT: ES256, kid, iss, aud, bid): messages, images, defaults, the real-time URL, the
/// performance test, Apple's errors, Apple's limits checked before sending, the audit of
/// every change, and the responder passing over a rule whose message Apple has not approved.
@Suite("Retention Messaging routes")
struct RetentionMessagingTests {
    static let message = "4b1f3a52-9c3e-4f0a-8d2b-1e6f7a9c0d11"
    static let other = "5c2a4b63-0d4f-4a1b-9e3c-2f7a8b0d1e22"
    static let image = "6d3b5c74-1e5a-4b2c-8f4d-3a8b9c1e2f33"
    static let bullet = "7e4c6d85-2f6b-4c3d-9a5e-4b9cad2f3a44"

    func harness(environment: String = "Production") throws -> AppStoreAPIHarness {
        let harness = try AppStoreAPIHarness(environment: environment)
        harness.env.retentionMessageStates = RetentionMessageStates(clients: harness.clients, clock: harness.env.clock)
        return harness
    }

    func put(_ harness: AppStoreAPIHarness, _ path: String, _ json: String, role: Role = .marketing,
             query: [String: String] = [:]) -> TestResponse {
        harness.env.send("PUT", path, role: role, json: json, query: query)
    }

    /// Requests the mock received on the messaging API, each with the JWT it accepted.
    func messagingCalls(_ harness: AppStoreAPIHarness) -> [String] {
        harness.store.requests.filter { $0.request.path.hasPrefix("/inApps/v1/messaging") }.map { recorded in
            (recorded.claims == nil ? "REFUSED " : "") + recorded.request.method + " " + recorded.request.path
        }
    }

    static func messageJSON(header: String = "Before you go", body: String = "Your plan keeps your library in sync.",
                            extra: String = "") -> String {
        #"{"header": "\#(header)", "body": "\#(body)"\#(extra)}"#
    }

    /// A PNG's signature, IHDR, one IDAT and IEND, each with its CRC (what Apple's size rules
    /// and the structure checks read; the image data is an empty zlib stream, never decoded).
    static func png(width: Int, height: Int, colorType: UInt8 = 2, depth: UInt8 = 8) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [depth, colorType, 0, 0, 0]
        return pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }

    /// A PNG chunk: length, type, data and the CRC-32 (bitwise, as the PNG specification's sample code) of type and data.
    static func chunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in Array(type.utf8) + data {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return be32(data.count) + Array(type.utf8) + data + be32(Int(crc ?? ~c))
    }

    func putImage(_ harness: AppStoreAPIHarness, _ id: String, _ png: [UInt8], size: String? = nil,
                  contentType: String = "image/png") -> TestResponse {
        var headers: HTTPHeaders = ["Authorization": "Bearer \(TestEnvironment.tokens[.marketing]!)", "Content-Type": contentType]
        headers.set("Content-Length", String(png.count))
        let request = HTTPRequest(method: "PUT", path: "/v1/admin/retention-images/\(id)", query: size.map { ["imageSize": $0] } ?? [:],
                                  headers: headers, body: png)
        return TestResponse(response: harness.env.router.respond(to: request))
    }

    @Test("a message is uploaded (201), listed with Apple's state and its text, and deleted; every call carries an accepted JWT")
    func messages() throws {
        let harness = try harness()
        let uploaded = put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON())
        #expect(uploaded.status == 201, "\(uploaded.text)")
        #expect(uploaded.json["messageIdentifier"] as? String == Self.message && uploaded.json["state"] as? String == "PENDING")
        #expect(harness.store.messaging.messageBody(Self.message)?["header"] as? String == "Before you go")

        harness.store.messaging.addMessage(Self.other, state: "REJECTED")
        let list = harness.env.send("GET", "/v1/admin/retention-messages", role: .auditor)
        #expect(list.status == 200, "\(list.text)")
        let items = try #require(list.json["items"] as? [[String: Any]])
        let ours = try #require(items.first { $0["messageIdentifier"] as? String == Self.message })
        #expect(ours["state"] as? String == "PENDING" && ours["header"] as? String == "Before you go"
                && ours["body"] as? String == "Your plan keeps your library in sync.")
        let theirs = try #require(items.first { $0["messageIdentifier"] as? String == Self.other })
        #expect(theirs["state"] as? String == "REJECTED" && theirs["header"] == nil, "a message uploaded elsewhere has no text here")

        harness.store.messaging.setMessageState(Self.message, "APPROVED")
        let approved = harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing)
        #expect((approved.json["items"] as? [[String: Any]])?.first { $0["messageIdentifier"] as? String == Self.message }?["state"]
                as? String == "APPROVED")

        let again = put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON())
        #expect(again.status == 409 && again.json["appleErrorCode"] as? Int == 4090001, "Apple's MessageAlreadyExistsError: \(again.text)")

        let deleted = harness.env.send("DELETE", "/v1/admin/retention-messages/\(Self.message)", role: .marketing)
        #expect(deleted.status == 200 && harness.store.messaging.messageState(Self.message) == nil)
        let gone = harness.env.send("DELETE", "/v1/admin/retention-messages/\(Self.message)", role: .marketing)
        #expect(gone.status == 404 && gone.json["appleErrorCode"] as? Int == 4040015 && gone.text.contains("Message not found"))

        #expect(harness.env.send("PUT", "/v1/admin/retention-messages/\(Self.other)", role: .auditor, json: Self.messageJSON()).status == 403)
        #expect(harness.env.send("GET", "/v1/admin/retention-messages", role: .client).status == 403)
        let calls = messagingCalls(harness)
        #expect(calls.contains("PUT /inApps/v1/messaging/message/\(Self.message)") && calls.contains("GET /inApps/v1/messaging/message/list")
                && calls.contains("DELETE /inApps/v1/messaging/message/\(Self.message)"))
        #expect(!calls.contains { $0.hasPrefix("REFUSED") }, "the mock accepted every token: \(calls)")
    }

    @Test("Apple's limits are refused with 400 before anything is sent: header 66, body 144, 5 bullet points, UUIDs, ABOVE_IMAGE needs an image")
    func limitsBeforeSending() throws {
        let harness = try harness()
        let path = "/v1/admin/retention-messages/\(Self.message)"
        let header = put(harness, path, Self.messageJSON(header: String(repeating: "h", count: 67)))
        #expect(header.status == 400 && header.text.contains("'header' is 67 characters; Apple takes at most 66"))
        let body = put(harness, path, Self.messageJSON(body: String(repeating: "é", count: 145)))
        #expect(body.status == 400 && body.text.contains("'body' is 145 characters"))
        #expect(put(harness, path, Self.messageJSON(header: String(repeating: "h", count: 66), body: String(repeating: "b", count: 144)))
                .status == 201, "the limits themselves are allowed")
        let bullet = #"{"text": "Offline listening", "imageIdentifier": "\#(Self.bullet)", "altText": "headphones"}"#
        let six = put(harness, "/v1/admin/retention-messages/\(Self.other)",
                      Self.messageJSON(extra: #", "bulletPoints": [\#(Array(repeating: bullet, count: 6).joined(separator: ","))]"#))
        #expect(six.status == 400 && six.text.contains("'bulletPoints' has 6 items; Apple takes at most 5"))
        let above = put(harness, "/v1/admin/retention-messages/\(Self.other)", Self.messageJSON(extra: #", "headerPosition": "ABOVE_IMAGE""#))
        #expect(above.status == 400 && above.text.contains("ABOVE_IMAGE needs an 'image'"))
        let notUUID = put(harness, "/v1/admin/retention-messages/not-a-uuid", Self.messageJSON())
        #expect(notUUID.status == 400 && notUUID.text.contains("must be a UUID"))
        let upper = put(harness, "/v1/admin/retention-messages/\(Self.other.uppercased())", Self.messageJSON())
        #expect(upper.status == 400, "Apple's identifiers are lowercase")
        #expect(put(harness, path, #"{"header": "x", "body": "y", "colour": "red"}"#).status == 400, "unknown fields are refused")
        let locale = put(harness, "/v1/admin/retention-defaults/pro_monthly/english!", #"{"messageIdentifier": "\#(Self.message)"}"#)
        #expect(locale.status == 400 && locale.text.contains("'locale' must be"))
        let url = harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .admin, json: #"{"realtimeURL": "http://signer.example.com/x"}"#)
        #expect(url.status == 400 && url.text.contains("https"))
        let test = harness.env.send("POST", "/v1/admin/retention-performance-tests", role: .admin, json: #"{"originalTransactionId": "12a"}"#)
        #expect(test.status == 400)
        #expect(messagingCalls(harness) == ["PUT /inApps/v1/messaging/message/\(Self.message)", "GET /inApps/v1/messaging/message/list"],
                "only the valid upload (and the state refresh after it) reached Apple")
    }

    @Test("a message whose text holds a control character is refused before it reaches Apple, naming the field and the character",
          arguments: [("header", "Before\u{0007}you go"), ("body", "Line one\nline two"), ("body", "tab\there"), ("header", "C1\u{85}")])
    func controlCharacters(_ field: String, _ text: String) throws {
        let harness = try harness()
        let json = String(decoding: try JSONSerialization.data(withJSONObject: field == "header"
            ? ["header": text, "body": "Your plan keeps your library in sync."] : ["header": "Before you go", "body": text]), as: UTF8.self)
        let refused = put(harness, "/v1/admin/retention-messages/\(Self.message)", json)
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.text.contains("'\(field)' has the control character U+00"), "\(refused.text)")
        #expect(messagingCalls(harness).isEmpty)
    }

    @Test("an image that is not a sound PNG is refused before it reaches Apple, saying what is wrong", arguments: [
        ("HTML after the header", pngSignature + Array("<html><body>hello</body></html>".utf8), "type is not four letters"),
        ("bytes after IEND", png(width: 1024, height: 1024) + Array("<script>".utf8), "8 bytes after its IEND"),
        ("a wrong CRC", pngSignature + chunk("IHDR", be32(1024) + be32(1024) + [8, 2, 0, 0, 0], crc: 0) + chunk("IEND", []), "CRC"),
        ("IHDR of 14 bytes", pngSignature + chunk("IHDR", be32(1024) + be32(1024) + [8, 2, 0, 0, 0, 0]) + chunk("IEND", []), "not 13"),
        ("colour type 5", png(width: 1024, height: 1024, colorType: 5), "colour type 5"),
        ("bit depth 4 in RGB", png(width: 1024, height: 1024, depth: 4), "bit depth 4"),
        ("no IEND", Array(png(width: 1024, height: 1024).dropLast(12)), "no IEND"),
        ("no IDAT", pngSignature + chunk("IHDR", be32(1024) + be32(1024) + [8, 2, 0, 0, 0]) + chunk("IEND", []), "no image data"),
        ("palette without PLTE", png(width: 1024, height: 1024, colorType: 3), "no PLTE"),
        ("IEND not empty", pngSignature + chunk("IHDR", be32(1024) + be32(1024) + [8, 2, 0, 0, 0]) + chunk("IDAT", [1]) + chunk("IEND", [0]),
         "IEND chunk is not empty"),
    ])
    func malformedPNG(_ name: String, _ png: [UInt8], _ said: String) throws {
        let harness = try harness()
        let refused = putImage(harness, Self.other, png, size: "BULLET_POINT")
        #expect(refused.status == 400, "\(name): \(refused.text)")
        #expect(refused.text.contains(said), "\(name): \(refused.text)")
        #expect(messagingCalls(harness).isEmpty, "\(name) never reached Apple")
    }

    @Test("images: a PNG of Apple's sizes is uploaded and listed; wrong sizes, transparency and non-PNG are refused before sending; one in use cannot be deleted")
    func images() throws {
        let harness = try harness()
        let full = putImage(harness, Self.image, Self.png(width: 3840, height: 1080))
        #expect(full.status == 201 && full.json["width"] as? Int == 3840 && full.json["imageSize"] as? String == "FULL_SIZE", "\(full.text)")
        #expect(harness.store.messaging.imageSize(Self.image) == "FULL_SIZE")
        let icon = putImage(harness, Self.bullet, Self.png(width: 1024, height: 1024), size: "BULLET_POINT")
        #expect(icon.status == 201 && harness.store.messaging.imageSize(Self.bullet) == "BULLET_POINT")

        let before = messagingCalls(harness).count
        let wrongSize = putImage(harness, Self.other, Self.png(width: 1024, height: 1024))
        #expect(wrongSize.status == 400 && wrongSize.text.contains("3840 pixels wide"))
        let tooTall = putImage(harness, Self.other, Self.png(width: 3840, height: 2161))
        #expect(tooTall.status == 400)
        let alpha = putImage(harness, Self.other, Self.png(width: 1024, height: 1024, colorType: 6), size: "BULLET_POINT")
        #expect(alpha.status == 400 && alpha.text.contains("transparency"))
        let jpeg = putImage(harness, Self.other, [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0, count: 40))
        #expect(jpeg.status == 400 && jpeg.text.contains("not a PNG"))
        #expect(putImage(harness, Self.other, Self.png(width: 1024, height: 1024), size: "HUGE").status == 400)
        #expect(putImage(harness, Self.other, Self.png(width: 1024, height: 1024), contentType: "image/jpeg").status == 415)
        #expect(messagingCalls(harness).count == before, "nothing refused reached Apple")

        let list = harness.env.send("GET", "/v1/admin/retention-images", role: .marketing)
        let items = try #require(list.json["items"] as? [[String: Any]])
        #expect(items.count == 2 && items.allSatisfy { $0["state"] as? String == "PENDING" && $0["sha256"] is String })

        let withImage = #", "image": {"imageIdentifier": "\#(Self.image)", "altText": "A phone showing the library"}"#
        #expect(put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON(extra: withImage)).status == 201)
        let inUse = harness.env.send("DELETE", "/v1/admin/retention-images/\(Self.image)", role: .marketing)
        #expect(inUse.status == 409 && inUse.json["appleErrorCode"] as? Int == 4030019 && inUse.text.contains("in use"), "\(inUse.text)")
        #expect(harness.env.send("DELETE", "/v1/admin/retention-images/\(Self.bullet)", role: .marketing).status == 200)
    }

    @Test("defaults per product and locale: Apple refuses an unapproved message (409 with Apple's words), then configures, reads, lists and deletes")
    func defaults() throws {
        let harness = try harness()
        let uploaded = put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON())
        #expect(uploaded.status == 201, "\(uploaded.text)")
        let path = "/v1/admin/retention-defaults/com.example.app.pro_monthly/en-US"
        let pending = put(harness, path, #"{"messageIdentifier": "\#(Self.message)"}"#)
        #expect(pending.status == 409 && pending.json["appleErrorCode"] as? Int == 4030017 && pending.text.contains("Message not approved"))
        let unknown = put(harness, path, #"{"messageIdentifier": "\#(Self.other)"}"#)
        #expect(unknown.status == 404 && unknown.json["appleErrorCode"] as? Int == 4040015)

        harness.store.messaging.setMessageState(Self.message, "APPROVED")
        let configured = put(harness, path, #"{"messageIdentifier": "\#(Self.message)"}"#)
        #expect(configured.status == 200, "\(configured.text)")
        #expect(harness.store.messaging.defaultMessage(productId: "com.example.app.pro_monthly", locale: "en-US") == Self.message)
        let read = harness.env.send("GET", path, role: .auditor)
        #expect(read.status == 200 && read.json["messageIdentifier"] as? String == Self.message)
        let list = harness.env.send("GET", "/v1/admin/retention-defaults", role: .marketing)
        #expect((list.json["items"] as? [[String: Any]])?.map { $0["locale"] as? String } == ["en-US"])

        #expect(harness.env.send("DELETE", path, role: .marketing).status == 200)
        let missing = harness.env.send("GET", path, role: .marketing)
        #expect(missing.status == 404 && missing.json["appleErrorCode"] as? Int == 4040020)
        #expect((harness.env.send("GET", "/v1/admin/retention-defaults", role: .marketing).json["items"] as? [Any])?.isEmpty == true)
    }

    @Test("a real-time URL with user information (user:pass@) is refused before it reaches Apple, and never stored",
          arguments: ["https://user:pass@signer.example.com/x", "https://token@signer.example.com", "https://a:b@c@signer.example.com/",
                      "https://signer.example.com@evil.example.net/"])
    func realtimeURLWithCredentials(_ url: String) throws {
        let harness = try harness()
        let refused = harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .admin, json: #"{"realtimeURL": "\#(url)"}"#)
        #expect(refused.status == 400 && refused.text.contains("user name or password"), "\(refused.text)")
        #expect(messagingCalls(harness).isEmpty)
        let history = harness.env.send("GET", "/v1/audit/retention-messaging-changes", role: .auditor)
        #expect(!history.text.contains("pass") && !history.text.contains("token@"))
        // An @ after the host (in the path or query) is not user information.
        let inPath = harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .admin,
                                      json: #"{"realtimeURL": "https://signer.example.com/v1/retention?by=ops@example.com"}"#)
        #expect(inPath.status != 400, "\(inPath.text)")
    }

    @Test("a performance test runs in Sandbox unless Production is asked for: without ?environment= it never reaches Production")
    func performanceTestInSandbox() throws {
        let sandbox = try AppStoreAPIHarness(environment: "Sandbox")
        let started = sandbox.env.send("POST", "/v1/admin/retention-performance-tests", role: .admin,
                                       json: #"{"originalTransactionId": "2000000123456789"}"#)
        #expect(started.status == 201, "\(started.text)")
        let requestId = try #require(started.json["requestId"] as? String)
        #expect(sandbox.env.send("GET", "/v1/admin/retention-performance-tests/\(requestId)", role: .auditor).status == 200)
        let changes = sandbox.env.send("GET", "/v1/audit/retention-messaging-changes", role: .auditor)
        #expect(changes.text.contains(#""environment":"Sandbox""#), "\(changes.text)")

        let production = try harness()
        let refused = production.env.send("POST", "/v1/admin/retention-performance-tests", role: .admin,
                                          json: #"{"originalTransactionId": "2000000123456789"}"#)
        #expect(refused.status == 400 && refused.text.contains("Sandbox environment is not accepted"), "no Sandbox here: \(refused.text)")
        #expect(messagingCalls(production).isEmpty, "nothing was started in Production")
    }

    @Test("the real-time URL needs a passed performance test in Production: refused with Apple's words, then the test, its result, and the URL set, read and deleted")
    func realtimeURLAndPerformanceTest() throws {
        let harness = try harness()
        let url = #"{"realtimeURL": "https://signer.example.com/v1/retention/appstore"}"#
        let refused = harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .admin, json: url)
        #expect(refused.status == 409 && refused.json["appleErrorCode"] as? Int == 4030026 && refused.text.contains("performance test"))
        #expect(harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .marketing, json: url).status == 403)
        let none = harness.env.send("GET", "/v1/admin/retention-realtime-url", role: .auditor)
        #expect(none.status == 404 && none.json["appleErrorCode"] as? Int == 4040021)

        let production = ["environment": "Production"]
        let started = harness.env.send("POST", "/v1/admin/retention-performance-tests", role: .admin,
                                       json: #"{"originalTransactionId": "2000000123456789"}"#, query: production)
        #expect(started.status == 201, "\(started.text)")
        let requestId = try #require(started.json["requestId"] as? String)
        #expect((started.json["config"] as? [String: Any])?["responseTimeThreshold"] as? Int == 700)
        let result = harness.env.send("GET", "/v1/admin/retention-performance-tests/\(requestId)", role: .auditor, query: production)
        #expect(result.status == 200 && result.json["result"] as? String == "PASS" && result.json["successRate"] as? Int == 100)
        #expect((result.json["responseTimes"] as? [String: Any])?["p99"] as? Int == 480)
        let unknownTest = harness.env.send("GET", "/v1/admin/retention-performance-tests/\(Self.other)", role: .admin, query: production)
        #expect(unknownTest.status == 404 && unknownTest.json["appleErrorCode"] as? Int == 4040018)

        let set = harness.env.send("PUT", "/v1/admin/retention-realtime-url", role: .admin, json: url)
        #expect(set.status == 200 && harness.store.messaging.realtimeURL == "https://signer.example.com/v1/retention/appstore")
        let read = harness.env.send("GET", "/v1/admin/retention-realtime-url", role: .auditor)
        #expect(read.json["realtimeURL"] as? String == "https://signer.example.com/v1/retention/appstore")
        #expect(harness.env.send("DELETE", "/v1/admin/retention-realtime-url", role: .admin).status == 200)
        #expect(harness.store.messaging.realtimeURL == nil)
    }

    @Test("Apple failing is a 502 naming Apple's errorCode and message; a rate limit is a 503 with Retry-After; no client is a 503")
    func appleFailures() throws {
        let harness = try harness()
        harness.store.messaging.inject([.serverError(status: 500, code: 5000000), .serverError(status: 500, code: 5000000)])
        let failed = harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing)
        #expect(failed.status == 502 && failed.code == "appstore_api_failed" && failed.json["appleErrorCode"] as? Int == 5000000
                && failed.json["appleErrorMessage"] as? String == "An unknown error occurred. Please try again.", "\(failed.text)")
        harness.store.messaging.inject([.status(400, code: 4000164, message: "Invalid locale.")])
        let badLocale = put(harness, "/v1/admin/retention-defaults/pro_monthly/xx-YY", #"{"messageIdentifier": "\#(Self.message)"}"#)
        #expect(badLocale.status == 400 && badLocale.json["appleErrorCode"] as? Int == 4000164 && badLocale.text.contains("Invalid locale."),
                "a 4xx of Apple's that is the caller's fault comes back with Apple's words: \(badLocale.text)")
        harness.store.messaging.inject([.status(404, code: 0, message: "")])
        #expect(harness.env.send("GET", "/v1/admin/retention-images", role: .marketing).status == 502,
                "a 404 without Apple's not-found codes (no access to the API) is Apple failing, not the caller")
        harness.store.messaging.inject([.status(401, code: 0, message: "")])
        #expect(harness.env.send("GET", "/v1/admin/retention-images", role: .marketing).status == 502)
        harness.store.messaging.inject([.body("{\"messageIdentifiers\": 7}")])
        #expect(harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing).status == 502)
        harness.store.messaging.inject([.rateLimited(after: .seconds(60))])
        let limited = harness.env.send("GET", "/v1/admin/retention-images", role: .marketing)
        #expect(limited.status == 503 && Int(limited.response.headers["Retry-After"] ?? "") ?? 0 >= 50)
        #expect(harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing, query: ["bundleId": "com.other"]).status == 404)
        #expect(harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing, query: ["environment": "Xcode"]).status == 400)

        let plain = try TestEnvironment()
        let notConfigured = plain.send("GET", "/v1/admin/retention-messages", role: .marketing)
        #expect(notConfigured.status == 503 && notConfigured.text.contains("not configured"))
    }

    @Test("every change is in the audit: who, when, before and after, deletions included, for the auditor only")
    func audit() throws {
        let harness = try harness()
        #expect(put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON()).status == 201)
        harness.store.messaging.setMessageState(Self.message, "APPROVED")
        #expect(put(harness, "/v1/admin/retention-defaults/pro_monthly/fr-FR", #"{"messageIdentifier": "\#(Self.message)"}"#).status == 200)
        #expect(harness.env.send("DELETE", "/v1/admin/retention-defaults/pro_monthly/fr-FR", role: .marketing).status == 200)
        #expect(put(harness, "/v1/admin/retention-messages/not-a-uuid", Self.messageJSON()).status == 400)

        let page = harness.env.send("GET", "/v1/audit/retention-messaging-changes", role: .auditor)
        #expect(page.status == 200, "\(page.text)")
        let changes = try #require(page.json["items"] as? [[String: Any]])
        #expect(changes.map { $0["action"] as? String } == ["create", "create", "disable"], "a refused request records nothing")
        #expect(changes.allSatisfy { $0["apiKeyName"] as? String == "marketing-key" && $0["changedAt"] is String })
        let upload = changes[0]
        #expect(upload["ruleId"] as? String == "Production:message:\(Self.message)" && upload["before"] is NSNull)
        #expect(((upload["after"] as? [String: Any])?["message"] as? [String: Any])?["header"] as? String == "Before you go")
        let removal = changes[2]
        #expect((removal["before"] as? [String: Any])?["enabled"] as? Bool == true && (removal["after"] as? [String: Any])?["enabled"] as? Bool == false)
        #expect((removal["after"] as? [String: Any])?["messageIdentifier"] as? String == Self.message)
        #expect(harness.env.send("GET", "/v1/audit/retention-messaging-changes", role: .marketing).status == 403)
    }

    @Test("a retention rule naming a message Apple has not approved is saved with a warning; an approved one without")
    func ruleWarning() throws {
        let harness = try harness()
        #expect(put(harness, "/v1/admin/retention-messages/\(Self.message)", Self.messageJSON()).status == 201)
        let rule = #"{"ruleId": "save", "messageIdentifier": "\#(Self.message)"}"#
        let saved = put(harness, "/v1/admin/retention-rules/save", rule)
        #expect(saved.status == 201, "\(saved.text)")
        let warnings = try #require(saved.json["warnings"] as? [String])
        #expect(warnings == ["message '\(Self.message)' is PENDING at Apple in Production: the real-time responder skips this rule until Apple approves it"])
        let unknown = put(harness, "/v1/admin/retention-rules/other", #"{"ruleId": "other", "messageIdentifier": "\#(Self.other)"}"#)
        #expect(unknown.status == 201 && (unknown.json["warnings"] as? [String])?.first?.hasPrefix("Apple has no message") == true)

        harness.store.messaging.setMessageState(Self.message, "APPROVED")
        _ = harness.env.send("GET", "/v1/admin/retention-messages", role: .marketing)  // reads Apple's states again
        let approved = put(harness, "/v1/admin/retention-rules/save", #"{"ruleId": "save", "priority": 2, "messageIdentifier": "\#(Self.message)"}"#)
        #expect(approved.status == 200 && approved.json["warnings"] == nil, "\(approved.text)")
    }

    @Test("the responder passes over a rule whose message is not APPROVED (next rule, or Apple's default) and uses it once approved")
    func responderSkipsUnapproved() throws {
        let harness = try harness()
        let env = harness.env
        _ = try env.rules.put(RetentionRule(ruleId: "first", bundleId: TestEnvironment.bundleId, priority: 10, messageIdentifier: Self.message),
                              by: "test", at: env.now)
        _ = try env.rules.put(RetentionRule(ruleId: "second", bundleId: TestEnvironment.bundleId, priority: 5, messageIdentifier: Self.other),
                              by: "test", at: env.now)
        func ask() -> String? {
            let payload = TestAppStore.realtimeRequest(original: "sub1", requestIdentifier: UUID().uuidString, signed: env.now - 1)
            let response = env.send("POST", "/v1/retention/appstore", role: nil, json: TestAppStore.json(["signedPayload": payload]))
            return (response.json["message"] as? [String: Any])?["messageIdentifier"] as? String
        }
        #expect(ask() == Self.message, "states not known yet: the rules are tried as before")

        harness.store.messaging.addMessage(Self.message, state: "PENDING")
        harness.store.messaging.addMessage(Self.other, state: "APPROVED")
        try #require(env.retentionMessageStates).refreshAll()
        #expect(ask() == Self.other, "the first rule's message is PENDING: the next rule answers")

        harness.store.messaging.setMessageState(Self.other, "REJECTED")
        try #require(env.retentionMessageStates).refreshAll()
        #expect(ask() == nil, "no rule's message is approved: Apple's default (an empty answer)")

        harness.store.messaging.setMessageState(Self.message, "APPROVED")
        try #require(env.retentionMessageStates).refreshAll()
        #expect(ask() == Self.message)

    }

    @Test("states older than maxAge count as unknown: an Apple unreachable for long changes no answer")
    func staleStatesAreUnknown() throws {
        let harness = try harness()
        final class Clock: Sendable { let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000)) }
        let clock = Clock()
        let states = RetentionMessageStates(clients: harness.clients, clock: WallClock { clock.now.withLock { $0 } }, maxAge: 900)
        harness.store.messaging.addMessage(Self.message, state: "PENDING")
        try states.refresh(bundleId: TestEnvironment.bundleId, environment: "Production")
        #expect(states.approval(of: Self.message, bundleId: TestEnvironment.bundleId, environment: "Production") == .notApproved(state: "PENDING"))
        #expect(states.approval(of: Self.other, bundleId: TestEnvironment.bundleId, environment: "Production") == .notApproved(state: "MISSING"))
        #expect(states.approval(of: Self.message, bundleId: TestEnvironment.bundleId, environment: "Sandbox") == .unknown)
        harness.store.messaging.inject(Array(repeating: .serverError(status: 500, code: 5000000), count: 8))
        clock.now.withLock { $0 += 901 }
        states.refreshAll()
        #expect(states.approval(of: Self.message, bundleId: TestEnvironment.bundleId, environment: "Production") == .unknown)
    }

    @Test("the background refresh asks Apple only about apps that have retention rules")
    func refreshOnlyAppsInUse() throws {
        let harness = try harness()
        let inUse = Mutex(false)
        let states = RetentionMessageStates(clients: harness.clients, clock: harness.env.clock, isInUse: { _ in inUse.withLock { $0 } })
        harness.store.messaging.addMessage(Self.message, state: "APPROVED")
        states.refreshAll()
        #expect(messagingCalls(harness).isEmpty, "an app without retention rules cost Apple a call")
        #expect(states.approval(of: Self.message, bundleId: TestEnvironment.bundleId, environment: "Production") == .unknown)
        inUse.withLock { $0 = true }
        states.refreshAll()
        #expect(messagingCalls(harness).contains("GET /inApps/v1/messaging/message/list"))
        #expect(states.approval(of: Self.message, bundleId: TestEnvironment.bundleId, environment: "Production") == .approved)
    }

    @Test("a message is usable only when its images are approved too; Apple's image list is asked only when a message shows one")
    func imagesMustBeApproved() throws {
        let harness = try harness()
        let shows = Mutex<[String: [String]]>([:])
        let states = RetentionMessageStates(clients: harness.clients, clock: harness.env.clock,
                                            imagesOf: { _, _ in shows.withLock { $0 } })
        let app = TestEnvironment.bundleId
        harness.store.messaging.addMessage(Self.message, state: "APPROVED")
        harness.store.messaging.addImage(Self.image, state: "PENDING")
        try states.refresh(bundleId: app, environment: "Production")
        #expect(states.approval(of: Self.message, bundleId: app, environment: "Production") == .approved)
        #expect(!messagingCalls(harness).contains("GET /inApps/v1/messaging/image/list"), "no message shows an image: no call")

        shows.withLock { $0 = [Self.message: [Self.image]] }
        try states.refresh(bundleId: app, environment: "Production")
        #expect(states.approval(of: Self.message, bundleId: app, environment: "Production")
                == .notApproved(state: "approved, its image \(Self.image) PENDING"))
        harness.store.messaging.setImageState(Self.image, "APPROVED")
        try states.refresh(bundleId: app, environment: "Production")
        #expect(states.approval(of: Self.message, bundleId: app, environment: "Production") == .approved)
        shows.withLock { $0 = [Self.message: [Self.bullet]] }
        try states.refresh(bundleId: app, environment: "Production")
        #expect(states.approval(of: Self.message, bundleId: app, environment: "Production")
                == .notApproved(state: "approved, its image \(Self.bullet) MISSING"))
    }

    @Test("the images a message shows come from the records of messages uploaded here, per environment, deleted ones left out")
    func imagesByMessage() throws {
        var shown = RetentionMessagingRecord(bundleId: TestEnvironment.bundleId, environment: "Production", item: .message, key: Self.message)
        shown.messageIdentifier = Self.message
        shown.message = try JSONDecoder().decode(UploadMessageRequestBody.self, from: Data("""
            {"header": "h", "body": "b", "image": {"imageIdentifier": "\(Self.image)", "altText": "a"},
             "bulletPoints": [{"text": "t", "imageIdentifier": "\(Self.bullet.uppercased())", "altText": "a"}]}
            """.utf8))
        var deleted = shown
        deleted.messageIdentifier = Self.other
        deleted.enabled = false
        var sandbox = shown
        sandbox.environment = "Sandbox"
        sandbox.messageIdentifier = Self.other
        let images = RetentionMessagingRecord.imagesByMessage([shown, deleted, sandbox], environment: "Production")
        #expect(images == [Self.message: [Self.image, Self.bullet]])
    }
}
