import Foundation
import OfferSignerCore

/// An HTTP response value.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; keys sorted so output is stable.
    public static func json<Body: Encodable>(_ value: Body, status: Int = 200, headers: HTTPHeaders = [:]) throws -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: Array(try JSONCoding.encoder.encode(value)))
    }

    /// A JSON response whose body is JSON text already written (by a hand-written document
    /// on a hot path, such as the signing answer).
    public static func json(encoded text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
    }

    /// A JSON response whose body is JSON text already written as bytes (the signing answer).
    public static func json(encoded body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }
}
