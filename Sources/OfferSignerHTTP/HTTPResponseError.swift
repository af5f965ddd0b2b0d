/// An error that knows the HTTP answer it stands for. The router turns it into a response
/// at its edge, the one place where errors become responses; any other error there is a
/// 500 whose cause goes only to the application's error report.
public protocol HTTPResponseError: Error {
    /// The problem document that answers a request that failed with this error.
    var problem: HTTPProblem { get }
    /// An unexpected failure that this error only carries (a store that could not be read,
    /// say): the router then reports it and answers a bare 500, as for any other error.
    var unexpectedCause: (any Error)? { get }
}

extension HTTPResponseError {
    public var unexpectedCause: (any Error)? { nil }
}

extension HTTPProblem: HTTPResponseError {
    public var problem: HTTPProblem { self }
}
