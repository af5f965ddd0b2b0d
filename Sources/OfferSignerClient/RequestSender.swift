import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one call's requests: the bearer token, JSON, each answer mapped to a value or an
/// ``OfferSignerError``, and `503 unavailable` retried by the ``RetryPolicy``.
struct RequestSender: Sendable {
    let baseURL: URL
    let apiKey: String
    let session: URLSession
    let retryPolicy: RetryPolicy
    /// A random number in `0...1` for the jitter (replaceable in tests).
    let random: @Sendable () -> Double

    /// `method` on the path made of `path`'s segments (each percent-encoded) under the base URL, with
    /// `query` and `body`, until an answer other than 503 or the deadline.
    func send(_ method: String, path: [String], query: [URLQueryItem] = [], body: Data? = nil) async throws(OfferSignerError) -> Data {
        let start = Date()
        var attempt = 0
        while true {
            attempt += 1
            let remaining = retryPolicy.deadline - Date().timeIntervalSince(start)
            let outcome = try await once(method, path: path, query: query, body: body, timeout: max(remaining, 0.001))
            switch outcome {
            case .answer(let data):
                return data
            case .unavailable(let retryAfter, let detail):
                let wait = retryPolicy.backoff(afterAttempt: attempt, retryAfter: retryAfter, random: random())
                let elapsed = Date().timeIntervalSince(start)
                guard wait.isFinite, elapsed + wait < retryPolicy.deadline else {
                    throw .unavailable(attempts: attempt, detail: detail)
                }
                try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
                if Task.isCancelled { throw .transport(description: "cancelled") }
            }
        }
    }

    /// What one request came to: a body to decode, or an answer worth retrying.
    private enum Outcome {
        case answer(Data)
        case unavailable(retryAfter: TimeInterval?, detail: String)
    }

    /// Characters a path segment keeps as they are.
    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))

    private func url(path: [String], query: [URLQueryItem]) throws(OfferSignerError) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest(detail: "not a URL: \(baseURL)")
        }
        var encoded = components.percentEncodedPath
        while encoded.hasSuffix("/") { encoded.removeLast() }
        for segment in path {
            guard let escaped = segment.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) else {
                throw .invalidRequest(detail: "cannot put \(segment) in a URL")
            }
            encoded += "/" + escaped
        }
        components.percentEncodedPath = encoded
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .invalidRequest(detail: "cannot make a URL of \(baseURL) and \(path)") }
        return url
    }

    private func once(_ method: String, path: [String], query: [URLQueryItem], body: Data?,
                      timeout: TimeInterval) async throws(OfferSignerError) -> Outcome {
        let url = try url(path: path, query: query)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport(description: String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else { throw .transport(description: "not an HTTP answer") }
        if (200..<300).contains(http.statusCode) { return .answer(data) }
        let problem = ProblemDocument.decode(data)
        let detail = problem?.fullDetail ?? String(decoding: data.prefix(500), as: UTF8.self)
        let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
        switch (http.statusCode, problem?.code) {
        case (503, _):
            return .unavailable(retryAfter: retryAfter, detail: detail)
        case (_, "not_eligible"):
            throw .notEligible(reasons: problem?.reasons ?? [], detail: detail)
        case (_, "experiment_control"):
            throw .experimentControl(experimentID: problem?.experimentId ?? "", armID: problem?.armId ?? "", detail: detail)
        case (_, "proof_required"):
            throw .proofRequired(detail: detail)
        case (_, "proof_mismatch"):
            throw .proofMismatch(detail: detail)
        case (_, "invalid_signed_data"):
            throw .invalidSignedData(detail: detail)
        case (_, "consent_rescinded"):
            throw .consentRescinded(detail: detail)
        case (429, _):
            throw .rateLimited(retryAfter: retryAfter, detail: detail)
        case (_, "invalid_request"):
            throw .invalidRequest(detail: detail)
        case (404, _):
            throw .notFound(detail: detail)
        case (401, _):
            throw .unauthorized(detail: detail)
        case (403, "forbidden"):
            throw .forbidden(detail: detail)
        default:
            throw .unexpectedResponse(status: http.statusCode, code: problem?.code, detail: detail)
        }
    }
}
