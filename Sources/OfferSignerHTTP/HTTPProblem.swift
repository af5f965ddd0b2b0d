import Foundation
import OfferSignerCore

/// An error that renders itself as an RFC 9457 problem document (`application/problem+json`).
public struct HTTPProblem: Error, Sendable, CustomStringConvertible {
    public var status: Int
    /// The stable machine-readable code, e.g. `not_eligible`.
    public var code: String
    public var title: String
    public var detail: String
    /// Extra members of the document, e.g. `reasons`.
    public var extensions: [String: any Encodable & Sendable]
    public var headers: HTTPHeaders

    public init(
        status: Int, code: String, title: String, detail: String,
        extensions: [String: any Encodable & Sendable] = [:], headers: HTTPHeaders = [:]
    ) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(detail)" }

    /// The problem document as a response.
    public var response: HTTPResponse {
        var headers = headers
        headers.set("Content-Type", "application/problem+json")
        let body = (try? JSONCoding.encoder.encode(ProblemDocument(problem: self))) ?? Data()
        return HTTPResponse(status: status, headers: headers, body: Array(body))
    }

    public static func invalidRequest(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 400, code: "invalid_request", title: "Invalid request", detail: detail)
    }

    /// 400 `invalid_request` naming every fault: joined by "; " in `detail`, listed in `errors`.
    public static func invalidRequest(listing problems: [String]) -> HTTPProblem {
        HTTPProblem(status: 400, code: "invalid_request", title: "Invalid request", detail: problems.joined(separator: "; "),
                    extensions: ["errors": problems])
    }

    public static func unauthorized(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 401, code: "unauthorized", title: "Unauthorized", detail: detail,
                    headers: ["WWW-Authenticate": "Bearer"])
    }

    public static func forbidden(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 403, code: "forbidden", title: "Forbidden", detail: detail)
    }

    public static func notFound(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 404, code: "not_found", title: "Not found", detail: detail)
    }

    public static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPProblem {
        HTTPProblem(status: 405, code: "method_not_allowed", title: "Method not allowed",
                    detail: "\(method) is not allowed here; use \(allowed.joined(separator: ", "))",
                    headers: ["Allow": allowed.joined(separator: ", ")])
    }

    public static func unsupportedMediaType(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 415, code: "unsupported_media_type", title: "Unsupported media type", detail: detail)
    }

    public static func payloadTooLarge(limit: Int) -> HTTPProblem {
        HTTPProblem(status: 413, code: "payload_too_large", title: "Payload too large",
                    detail: "the request body is larger than \(limit) bytes")
    }

    public static func rateLimited(_ detail: String, retryAfterSeconds: Int) -> HTTPProblem {
        HTTPProblem(status: 429, code: "rate_limited", title: "Too many requests", detail: detail,
                    headers: ["Retry-After": String(max(1, retryAfterSeconds))])
    }

    /// 503; with `retryAfterSeconds`, a `Retry-After` header saying when to try again.
    public static func unavailable(_ detail: String, retryAfterSeconds: Int? = nil) -> HTTPProblem {
        HTTPProblem(status: 503, code: "unavailable", title: "Service unavailable", detail: detail,
                    headers: retryAfterSeconds.map { ["Retry-After": String(max(1, $0))] } ?? [:])
    }

    /// For an unexpected failure: says nothing of its cause, which goes to the log instead.
    public static func internalError(requestId: String) -> HTTPProblem {
        HTTPProblem(status: 500, code: "internal_error", title: "Internal error",
                    detail: "an unexpected error occurred; quote request id \(requestId) to the operators")
    }
}

/// The JSON shape of a problem: the fixed members, then the extensions.
private struct ProblemDocument: Encodable {
    let problem: HTTPProblem

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ProblemKey.self)
        try container.encode("urn:offer-signer:problem:\(problem.code)", forKey: ProblemKey("type"))
        try container.encode(problem.title, forKey: ProblemKey("title"))
        try container.encode(problem.status, forKey: ProblemKey("status"))
        try container.encode(problem.detail, forKey: ProblemKey("detail"))
        try container.encode(problem.code, forKey: ProblemKey("code"))
        for (name, value) in problem.extensions {
            try container.encode(value, forKey: ProblemKey(name))
        }
    }
}

private struct ProblemKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
