internal import CMicroHTTPD
import Foundation

/// Serves an `HTTPApplication` with GNU libmicrohttpd: one thread per connection (so a handler
/// may block on a durable commit without stalling other clients), keep-alive, and the limits of
/// `HTTPServerConfiguration`. This class only converts between libmicrohttpd and the
/// `HTTPRequest`/`HTTPResponse` values; everything else lives in the application.
public final class HTTPServer: @unchecked Sendable { // @unchecked: `daemon` and `port` change only in start() and stop(), which the owner calls from one thread; libmicrohttpd threads read only `application`
    private let application: any HTTPApplication
    private let configuration: HTTPServerConfiguration
    private var daemon: OpaquePointer?
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
            connection_limit: UInt32(configuration.connectionLimit),
            per_ip_connection_limit: UInt32(configuration.perAddressConnectionLimit),
            connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
            connection_memory_limit: configuration.connectionMemoryLimit,
            thread_stack_size: 1 << 20)
        let context = Unmanaged.passUnretained(self).toOpaque()
        errno = 0
        let started = address.withSockaddr { sockaddr in
            cmhd_start(flags, sockaddr, { cls, connection, url, method, _, data, size, state in
                guard let cls, let connection, let url, let method, let size, let state else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return server.access(connection, url: url, method: method, data: data, size: size, state: state)
            }, { _, _, state, _ in
                guard let state, let pending = state.pointee else { return }
                Unmanaged<PendingRequest>.fromOpaque(pending).release()
                state.pointee = nil
            }, context, options)
        }
        guard let started else {
            throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port,
                                               reason: errno == 0 ? "libmicrohttpd refused to start" : String(cString: strerror(errno)))
        }
        daemon = started
        port = cmhd_bound_port(started)
    }

    /// Stops accepting, closes connections and waits for handlers that are running.
    public func stop() {
        if let daemon {
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
    }

    private func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = state.pointee else {
            let method = String(cString: method)
            let path = String(cString: url)
            let pending = PendingRequest(method: method, path: path, route: application.resolve(method: method, path: path))
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
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
            pending.append(UnsafeRawBufferPointer(start: data, count: size.pointee))
            size.pointee = 0
            return .YES
        }
        return pending.responded ? .YES : respond(connection, pending)
    }

    private func respond(_ connection: OpaquePointer, _ pending: PendingRequest, beforeBody: Bool = false) -> MHD_Result {
        pending.responded = true
        let response = application.respond(to: request(connection, pending, complete: !beforeBody), route: pending.route)
        pending.removeSpool()
        let created = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers {
            _ = MHD_add_response_header(created, name, value)
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    /// The request: its head, and when `complete` its body (closing a spooled body's file).
    private func request(_ connection: OpaquePointer, _ pending: PendingRequest, complete: Bool) -> HTTPRequest {
        HTTPRequest(
            method: pending.method, path: pending.path,
            query: Self.values(connection, kind: .GET_ARGUMENT_KIND).reduce(into: [:]) { query, pair in
                if query[pair.name] == nil { query[pair.name] = pair.value }
            },
            headers: Self.values(connection, kind: .HEADER_KIND).reduce(into: HTTPHeaders()) { $0.add($1.name, $1.value) },
            body: pending.body, bodyFile: complete ? pending.finishSpool() : nil, bodyExceededLimit: pending.exceeded,
            remoteAddress: SocketAddress.describe(cmhd_client_address(connection)))
    }

    private static func values(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collector = PairCollector()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue()
            collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
        return withExtendedLifetime(collector) { collector.pairs }
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
    var policy: BodyPolicy { route.body }
    var body: [UInt8] = []
    var received = 0
    var exceeded = false
    var responded = false
    private var spool: (url: URL, handle: FileHandle)?
    private var spoolFailed = false

    init(method: String, path: String, route: ResolvedRoute) {
        self.method = method
        self.path = path
        self.route = route
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

private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}
