import Foundation
import OfferSignerHTTP

/// Times every request, counts it in the metrics and writes its request-log line
/// (time, request id, method, route, status, latency, API key name; never a secret).
struct ObservabilityMiddleware: HTTPMiddleware {
    let metrics: Metrics
    let logger: Logger

    func handle(_ request: HTTPRequest, context: RequestContext, next: HTTPResponder) throws -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let response: HTTPResponse
        do {
            response = try next(request, context)
        } catch let problem as HTTPProblem {
            response = problem.response
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let route = context.route ?? "unmatched"
        metrics.recordRequest(route: route, method: request.method, status: response.status, seconds: seconds)
        guard logger.isEnabled(.info) else { return response }
        var fields: [String: LogValue] = [
            "requestId": .string(context.requestId), "method": .string(request.method), "route": .string(route),
            "status": .int(response.status), "latencyMs": .double((seconds * 1e6).rounded() / 1e3),
            "remoteAddress": .string(request.remoteAddress),
        ]
        if let principal = context.principal { fields["apiKey"] = .string(principal.name) }
        logger.log(.info, "request", fields)
        return response
    }
}
