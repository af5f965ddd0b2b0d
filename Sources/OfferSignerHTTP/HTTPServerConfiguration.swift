/// Where and how the HTTP server listens, and the limits that keep slow or idle clients
/// from holding every worker.
public struct HTTPServerConfiguration: Sendable {
    /// A numeric IPv4 or IPv6 address, or `localhost`.
    public var host: String
    /// 0 picks a free port.
    public var port: UInt16
    /// Connections served at once. Up to ``overCapacityConnections`` more are accepted only to
    /// be answered 503 with `Retry-After`; beyond those, libmicrohttpd refuses connections.
    public var connectionLimit: Int
    /// Connections one client address may hold open (0: no limit); beyond it, as beyond
    /// ``connectionLimit``, a connection is answered 503. When every slot is taken, an address
    /// holding more than the slots divided by the addresses connected loses idle connections
    /// first to new clients (see ``HTTPServer``).
    public var perAddressConnectionLimit: Int
    /// A connection idle this long is closed.
    public var connectionTimeoutSeconds: Int
    /// Memory for one connection's headers and buffers (libmicrohttpd's per-connection pool):
    /// the largest request head it serves. libmicrohttpd clears the whole pool for every
    /// request (one and a half times its size written per request), so it is no larger than
    /// the heads the server answers itself need: 48 KiB holds a request line of 5,000 query
    /// parameters (~39 KB, answered 414 by the server rather than by libmicrohttpd) and a head
    /// of ~40 KB of header fields (`HTTPHardeningTests`); it was 64 KiB until issue 38.
    public var connectionMemoryLimit: Int
    /// The time a request's head and body may take to arrive, counted from when the connection
    /// is ready for it (opened, or the previous response sent); a connection that overruns it
    /// is answered 408 and closed. It also bounds a kept-alive connection's idle time.
    public var requestTimeoutSeconds: Int
    /// Each body byte extends the request's time by 1/this of a second, so that an upload
    /// arriving at least this fast is never cut off.
    public var minimumUploadBytesPerSecond: Int
    /// Query parameters parsed; a request with more is answered 414.
    public var maxQueryParameters: Int
    /// The time a new connection's first request line may take to arrive (at most
    /// ``requestTimeoutSeconds``): a client that connects and sends nothing is answered 408 and
    /// closed after it.
    public var firstRequestLineTimeoutSeconds: Int

    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, connectionLimit: Int = 1000,
        perAddressConnectionLimit: Int = 0, connectionTimeoutSeconds: Int = 15, connectionMemoryLimit: Int = 48 * 1024,
        requestTimeoutSeconds: Int = 10, minimumUploadBytesPerSecond: Int = 1 << 20, maxQueryParameters: Int = 256,
        firstRequestLineTimeoutSeconds: Int = 2
    ) {
        self.firstRequestLineTimeoutSeconds = firstRequestLineTimeoutSeconds
        self.host = host
        self.port = port
        self.connectionLimit = connectionLimit
        self.perAddressConnectionLimit = perAddressConnectionLimit
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionMemoryLimit = connectionMemoryLimit
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.minimumUploadBytesPerSecond = minimumUploadBytesPerSecond
        self.maxQueryParameters = maxQueryParameters
    }

    /// Connections accepted beyond ``connectionLimit`` only to be answered 503, or while idle
    /// connections closed to make room are still closing: a quarter of the limit, at least 64.
    /// Beyond these, libmicrohttpd closes new connections unanswered.
    public var overCapacityConnections: Int { max(64, min(connectionLimit, 1 << 24) / 4) }
}
