import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Times every request, counts it in the metrics and writes its request-log line
/// (time, request id, method, route, status, latency, API key name; never a secret).
/// Errors pass through unchanged, to become responses at the router's edge; this step only
/// reads the status they will have.
struct ObservabilityMiddleware: HTTPMiddleware {
    let metrics: Metrics
    let logger: Logger

    func handle(_ request: HTTPRequest, context: ServiceContext, next: HTTPResponder<ServiceContext>) throws -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            let response = try next(request, context)
            record(request, context, status: response.status, since: started)
            return response
        } catch {
            record(request, context, status: Self.status(of: error), since: started)
            throw error
        }
    }

    /// The status the router's edge will answer `error` with.
    static func status(of error: any Error) -> Int {
        guard let error = error as? any HTTPResponseError, error.unexpectedCause == nil else { return 500 }
        return error.problem.status
    }

    private func record(_ request: HTTPRequest, _ context: ServiceContext, status: Int, since started: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let route = context.core.routePattern ?? "unmatched"
        metrics.recordRequest(route: route, method: request.method, status: status, seconds: seconds)
        guard logger.isEnabled(.info) else { return }
        var fields: [String: JSONValue] = [
            "requestId": .string(context.requestId), "method": .string(request.method), "route": .string(route),
            "status": .int(status), "latencyMs": .double((seconds * 1e6).rounded() / 1e3),
            "remoteAddress": .string(request.remoteAddress),
        ]
        if let principal = context.principal { fields["apiKey"] = .string(principal.name) }
        logger.log(.info, "request", fields)
    }
}
