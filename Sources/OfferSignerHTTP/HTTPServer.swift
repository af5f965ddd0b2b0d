internal import CMicroHTTPD
import Foundation

/// Serves an `HTTPApplication` with GNU libmicrohttpd: one thread per connection (so a handler
/// may block on a durable commit without stalling other clients), keep-alive, and the limits of
/// `HTTPServerConfiguration`. This class converts between libmicrohttpd and the
/// `HTTPRequest`/`HTTPResponse` values, and answers on its own what is wrong below the
/// application: request framing (``RequestFraming``), too many query parameters, connections
/// beyond the cap (503; idle connections are closed first to make room) and requests that do
/// not arrive in time (``ConnectionWatchdog``).
public final class HTTPServer: @unchecked Sendable { // @unchecked: `daemon`, `watchdog` and `port` change only in start() and stop(), which the owner calls from one thread; libmicrohttpd threads read only the `let`s and `watchdog`, which start() sets before the daemon runs and stop() clears after it ended
    private let application: any HTTPApplication
    private let configuration: HTTPServerConfiguration
    private var daemon: OpaquePointer?
    private var watchdog: ConnectionWatchdog?
    /// The port actually bound (useful with port 0).
    public private(set) var port: UInt16 = 0

    public init(application: any HTTPApplication, configuration: HTTPServerConfiguration) {
        self.application = application
        self.configuration = configuration
    }

    deinit { stop() }

    /// Binds and starts serving on libmicrohttpd's own threads.
    public func start() throws(HTTPServerError) {
        guard daemon == nil else { return }
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        // ITC: stop() wakes idle keep-alive connection threads instead of waiting out their timeout.
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let options = cmhd_options(
            connection_limit: UInt32(clamping: min(configuration.connectionLimit, 1 << 24) + configuration.overCapacityConnections),
            per_ip_connection_limit: UInt32(clamping: configuration.perAddressConnectionLimit == 0 ? 0
                : configuration.perAddressConnectionLimit + configuration.overCapacityConnections),
            connection_timeout_seconds: UInt32(clamping: configuration.connectionTimeoutSeconds),
            connection_memory_limit: configuration.connectionMemoryLimit,
            thread_stack_size: 1 << 20)
        let watchdog = ConnectionWatchdog(configuration: configuration)
        self.watchdog = watchdog
        let context = Unmanaged.passUnretained(self).toOpaque()
        errno = 0
        let started = address.withSockaddr { sockaddr in
            cmhd_start_server(flags, sockaddr, { cls, connection, url, method, version, data, size, state in
                guard let cls, let connection, let url, let method, let size, let state else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return server.access(connection, url: url, method: method, version: version, data: data, size: size, state: state)
            }, { cls, connection, state, _ in
                if let cls, let connection {
                    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connectionState(connection)?.responded()
                }
                guard let state, let pending = state.pointee else { return }
                Unmanaged<PendingRequest>.fromOpaque(pending).release()
                state.pointee = nil
            }, { cls, connection, socketContext, event in
                guard let cls, let connection, let socketContext else { return }
                Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connection(connection, socketContext, event)
            }, { cls, uri, connection in
                guard let cls, let uri, let connection else { return nil }
                Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestLine(uri, connection)
                return nil
            }, context, options)
        }
        guard let started else {
            self.watchdog = nil
            throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port,
                                               reason: errno == 0 ? "libmicrohttpd refused to start" : String(cString: strerror(errno)))
        }
        daemon = started
        port = cmhd_bound_port(started)
        watchdog.start()
    }

    /// Stops accepting, closes connections and waits for handlers that are running.
    public func stop() {
        if let daemon {
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
        watchdog?.stop()
        watchdog = nil
    }

    /// A connection opened or closed: its `ConnectionState` lives in libmicrohttpd's socket context.
    private func connection(_ connection: OpaquePointer, _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                            _ event: MHD_ConnectionNotificationCode) {
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            guard let watchdog else { return }
            let state = watchdog.opened(socket: cmhd_connection_fd(connection), address: SocketAddress.describe(cmhd_client_address(connection)))
            socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
        case .CONNECTION_NOTIFY_CLOSED:
            guard let opaque = socketContext.pointee else { return }
            let state = Unmanaged<ConnectionState>.fromOpaque(opaque)
            watchdog?.closed(state.takeUnretainedValue())
            state.release()
            socketContext.pointee = nil
        }
    }

    private func connectionState(_ connection: OpaquePointer) -> ConnectionState? {
        cmhd_socket_context(connection).map { Unmanaged<ConnectionState>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The request line has arrived, before libmicrohttpd parses its query: a query with more
    /// parameters than the limit is not parsed at all (see `cmhd_drop_query`) and answered 414.
    private func requestLine(_ uri: UnsafePointer<CChar>, _ connection: OpaquePointer) {
        connectionState(connection)?.requestLineReceived()
        guard let query = strchr(uri, Int32(UInt8(ascii: "?"))) else { return }
        var parameters = 1
        var cursor = query + 1
        while cursor.pointee != 0 {
            if cursor.pointee == CChar(UInt8(ascii: "&")) { parameters += 1 }
            cursor += 1
        }
        guard parameters > configuration.maxQueryParameters else { return }
        cmhd_drop_query(uri)
        connectionState(connection)?.refuseQuery()
    }

    private func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = state.pointee else {
            let method = String(cString: method)
            let path = String(cString: url)
            // The head is complete: its fields are read once, for the framing checks and the request.
            let pending = PendingRequest(method: method, path: path, route: resolve(method: method, path: path),
                                         headers: Self.headers(connection))
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            let connectionState = connectionState(connection)
            let tooManyParameters = connectionState?.headReceived() ?? false
            if let refusal = refusal(pending, connectionState, version: version.map { String(cString: $0) } ?? "",
                                     tooManyParameters: tooManyParameters) {
                connectionState?.answering()
                return queue(connection, pending, refusal, close: true)
            }
            let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length")
                .flatMap { Int(String(cString: $0)) }
            if let declared, declared > pending.policy.limit {
                pending.exceeded = true  // answer at once, without reading the body
                return respond(connection, pending, beforeBody: true)
            }
            if pending.policy.spoolToDisk, application.answersBeforeBody(request(connection, pending, complete: false), route: pending.route) {
                return respond(connection, pending, beforeBody: true)  // e.g. an upload without valid credentials
            }
            return .YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if size.pointee > 0 {
            connectionState(connection)?.bodyReceived(size.pointee)
            pending.append(UnsafeRawBufferPointer(start: data, count: size.pointee))
            size.pointee = 0
            return .YES
        }
        return pending.responded ? .YES : respond(connection, pending)
    }

    /// The route; HEAD on a path with a GET route but no HEAD route is answered as GET, and
    /// libmicrohttpd leaves the body out (RFC 9110 §9.3.2).
    private func resolve(method: String, path: String) -> ResolvedRoute {
        let resolved = application.resolve(method: method, path: path)
        guard method == "HEAD", case .methodNotAllowed = resolved.target else { return resolved }
        let get = application.resolve(method: "GET", path: path)
        guard case .route = get.target else { return resolved }
        return get
    }

    /// What the server answers on its own from a request head, before the application sees it.
    private func refusal(_ pending: PendingRequest, _ state: ConnectionState?, version: String,
                         tooManyParameters: Bool) -> HTTPResponse? {
        if state?.overCapacity == true {
            var problem = HTTPProblem.unavailable("the server is at its connection limit; retry shortly")
            problem.headers.set("Retry-After", "1")
            return problem.response
        }
        if tooManyParameters {
            return HTTPProblem(status: 414, code: "uri_too_long", title: "URI too long",
                               detail: "the query has more than \(configuration.maxQueryParameters) parameters").response
        }
        return RequestFraming.problem(version: version, headers: pending.headers)?.response
    }

    private func respond(_ connection: OpaquePointer, _ pending: PendingRequest, beforeBody: Bool = false) -> MHD_Result {
        connectionState(connection)?.answering()  // the handler's time is not the client's
        let response = application.respond(to: request(connection, pending, complete: !beforeBody), route: pending.route)
        return queue(connection, pending, response)
    }

    /// Queues `response` as the answer to `pending`; with `close`, the connection closes after it.
    private func queue(_ connection: OpaquePointer, _ pending: PendingRequest, _ response: HTTPResponse, close: Bool = false) -> MHD_Result {
        pending.responded = true
        pending.removeSpool()
        var response = response
        if close { response.headers.set("Connection", "close") }
        let created = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers {  // the strings' own bytes lent, not copied (issue 38)
            _ = name.withCString { name in value.withCString { MHD_add_response_header(created, name, $0) } }
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// The request: its head, and when `complete` its body (closing a spooled body's file).
    private func request(_ connection: OpaquePointer, _ pending: PendingRequest, complete: Bool) -> HTTPRequest {
        var query: [String: String] = [:]
        var repeated: [String] = []
        for pair in Self.values(connection, kind: .GET_ARGUMENT_KIND) {
            if query[pair.name] == nil {
                query[pair.name] = pair.value
            } else if !repeated.contains(pair.name) {
                repeated.append(pair.name)
            }
        }
        return HTTPRequest(
            method: pending.method, path: pending.path, query: query,
            headers: pending.headers,
            body: pending.body, bodyFile: complete ? pending.finishSpool() : nil, bodyExceededLimit: pending.exceeded,
            remoteAddress: connectionState(connection)?.address ?? SocketAddress.describe(cmhd_client_address(connection)),
            repeatedQueryParameters: repeated)
    }

    /// The values of `kind`, in order.
    private static func values(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collector = PairCollector()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue().pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
        return withExtendedLifetime(collector) { collector.pairs }
    }

    /// The request head's header fields, in order: added one by one as libmicrohttpd hands
    /// them over, into room for the usual dozen (issue 38: no array of pairs copied after).
    private static func headers(_ connection: OpaquePointer) -> HTTPHeaders {
        let collector = HeaderCollector()
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue().headers.add(String(cString: key), value.map { String(cString: $0) } ?? "")
            return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
        return withExtendedLifetime(collector) { collector.headers }
    }
}

/// Why the server could not start.
public enum HTTPServerError: Error, CustomStringConvertible {
    case invalidAddress(String)
    case cannotListen(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let host): "'\(host)' is not a numeric IPv4 or IPv6 address or localhost"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}

/// One request being read: its body so far, in memory or spooled to a temporary file,
/// bounded by the route's limit.
private final class PendingRequest {
    let method: String
    let path: String
    /// The route, looked up once from the head.
    let route: ResolvedRoute
    /// The head's header fields, read once when the head arrived.
    let headers: HTTPHeaders
    var policy: BodyPolicy { route.body }
    var body: [UInt8] = []
    var received = 0
    var exceeded = false
    var responded = false
    private var spool: (url: URL, handle: FileHandle)?
    private var spoolFailed = false

    init(method: String, path: String, route: ResolvedRoute, headers: HTTPHeaders) {
        self.method = method
        self.path = path
        self.route = route
        self.headers = headers
    }

    deinit { removeSpool() }

    func append(_ chunk: UnsafeRawBufferPointer) {
        guard !exceeded, !responded else { return }
        received += chunk.count
        if received > policy.limit {
            exceeded = true
            body = []
            removeSpool()
        } else if policy.spoolToDisk {
            writeToSpool(chunk)
        } else {
            body.append(contentsOf: chunk)
        }
    }

    private func writeToSpool(_ chunk: UnsafeRawBufferPointer) {
        guard !spoolFailed else { return }
        if spool == nil {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-upload-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: url.path) else {
                spoolFailed = true
                return
            }
            spool = (url, handle)
        }
        do {
            try spool?.handle.write(contentsOf: Data(chunk))
        } catch {
            spoolFailed = true
        }
    }

    /// Closes the spool file and returns it (an empty file for an empty spooled body), or nil
    /// when the body is held in memory.
    func finishSpool() -> URL? {
        guard policy.spoolToDisk, !exceeded else { return nil }
        if spool == nil && !spoolFailed { writeToSpool(UnsafeRawBufferPointer(start: nil, count: 0)) }
        try? spool?.handle.close()
        return spoolFailed ? nil : spool?.url
    }

    func removeSpool() {
        guard let spool else { return }
        try? spool.handle.close()
        try? FileManager.default.removeItem(at: spool.url)
        self.spool = nil
    }
}

private final class HeaderCollector {
    var headers = HTTPHeaders(capacity: 12)
}

private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}
