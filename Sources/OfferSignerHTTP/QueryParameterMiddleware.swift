/// Refuses a query parameter that the matched route does not declare (400), so that a typo
/// such as `?userid=` is an error rather than a filter silently left out, and a parameter
/// named twice (400), as a JSON body's duplicate keys are: which of two values counts is never
/// guessed. A request that matched no route passes on to its 404 or 405.
public struct QueryParameterMiddleware<Context: RequestContext>: HTTPMiddleware {
    public init() {}

    public func handle(_ request: HTTPRequest, context: Context, next: HTTPResponder<Context>) throws -> HTTPResponse {
        if context.core.queryParameters != nil, let repeated = request.repeatedQueryParameters.first {
            throw HTTPProblem.invalidRequest("the query parameter '\(repeated)' is given more than once; give it once")
        }
        if let declared = context.core.queryParameters,
           let unknown = request.query.keys.filter({ !declared.contains($0) }).sorted().first {
            let known = declared.sorted().map { "'\($0)'" }.joined(separator: ", ")
            throw HTTPProblem.invalidRequest("unknown query parameter '\(unknown)'" + (known.isEmpty ? "; this route takes none" : "; this route takes \(known)"))
        }
        return try next(request, context)
    }
}
