import Foundation

/// An HTTP request as the application sees it: the whole body already read.
public struct HTTPRequest: Sendable {
    /// Upper-case method, e.g. `POST`.
    public var method: String
    /// The decoded path, without the query.
    public var path: String
    /// Decoded query arguments; the first value wins when a name repeats.
    public var query: [String: String]
    /// The query parameters named more than once, in order (refused by `QueryParameterMiddleware`).
    public var repeatedQueryParameters: [String]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// For routes that spool their body: the temporary file holding it (removed after the response).
    public var bodyFile: URL?
    /// True when the client sent more than the route's body limit; `body` is then empty.
    public var bodyExceededLimit: Bool
    /// The peer's numeric address, e.g. `127.0.0.1`.
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [String: String] = [:], headers: HTTPHeaders = [:],
        body: [UInt8] = [], bodyFile: URL? = nil, bodyExceededLimit: Bool = false, remoteAddress: String = "127.0.0.1",
        repeatedQueryParameters: [String] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.repeatedQueryParameters = repeatedQueryParameters
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bodyExceededLimit = bodyExceededLimit
        self.remoteAddress = remoteAddress
    }
}
