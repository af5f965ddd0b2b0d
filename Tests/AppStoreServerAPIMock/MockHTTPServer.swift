internal import CMicroHTTPD
import Foundation
import Synchronization

/// A request as the mock server saw it.
public struct MockHTTPRequest: Sendable {
    public var method: String
    public var path: String
    /// Query parameters in order, repeated names kept, values percent-decoded.
    public var query: [(name: String, value: String)]
    public var authorization: String?
    public var body: Data
    /// The `Content-Type` header.
    public var contentType: String?
    /// Every header, in order, names as sent.
    public var headers: [(name: String, value: String)] = []
    /// The client's port: one per TCP connection (requests over a kept connection share it).
    public var clientPort: UInt16 = 0

    public init(method: String, path: String, query: [(name: String, value: String)] = [], authorization: String? = nil,
                body: Data = Data(), contentType: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
        self.contentType = contentType
    }

    public func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }
    public func queryValue(_ name: String) -> String? { queryValues(name).first }
    /// The first header of this name (any case).
    public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}

/// A response the mock server sends, optionally after a delay.
public struct MockHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data
    public var delay: Duration
    /// Held back until this gate opens (or the server stops), after the delay.
    public var gate: MockGate?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), delay: Duration = .zero,
                gate: MockGate? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.gate = gate
    }

    public static func json(_ status: Int, _ object: Any, headers: [(name: String, value: String)] = []) -> MockHTTPResponse {
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return MockHTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// Apple's error body: `{"errorCode": ..., "errorMessage": ...}`.
    public static func error(_ status: Int, code: Int64, message: String, headers: [(name: String, value: String)] = []) -> MockHTTPResponse {
        json(status, ["errorCode": code, "errorMessage": message], headers: headers)
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 and a free port, on GNU libmicrohttpd (one thread per
/// connection, so a slow answer holds up no other), answering with `handler`.
///
/// `@unchecked Sendable`: the daemon pointer is written by start/stop only, from the test's thread.
public final class MockHTTPServer: @unchecked Sendable {
    private let handler: @Sendable (MockHTTPRequest) -> MockHTTPResponse
    private var daemon: OpaquePointer?
    private let stopping = Atomic<Bool>(false)
    public private(set) var port: UInt16 = 0

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init(handler: @escaping @Sendable (MockHTTPRequest) -> MockHTTPResponse) throws {
        self.handler = handler
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
        let options = cmhd_options(connection_limit: 256, per_ip_connection_limit: 0, connection_timeout_seconds: 30,
                                   connection_memory_limit: 64 * 1024, thread_stack_size: 1 << 20)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                cmhd_start(flags, sockaddr, { cls, connection, url, method, _, data, size, state in
                    guard let cls, let connection, let url, let method, let size, let state else { return .NO }
                    let server = Unmanaged<MockHTTPServer>.fromOpaque(cls).takeUnretainedValue()
                    return server.access(connection, url: url, method: method, data: data, size: size, state: state)
                }, { _, _, state, _ in
                    guard let state, let pending = state.pointee else { return }
                    Unmanaged<PendingBody>.fromOpaque(pending).release()
                    state.pointee = nil
                }, context, options)
            }
        }
        guard let started else { throw MockServerError("libmicrohttpd did not start on 127.0.0.1") }
        daemon = started
        port = cmhd_bound_port(started)
    }

    deinit { stop() }

    /// Cuts delays short, closes connections and waits for running handlers.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        if let daemon {
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
    }

    private func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
                        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = state.pointee else {
            state.pointee = Unmanaged.passRetained(PendingBody()).toOpaque()
            return .YES
        }
        let pending = Unmanaged<PendingBody>.fromOpaque(existing).takeUnretainedValue()
        if size.pointee > 0 {
            pending.data.append(UnsafeRawBufferPointer(start: data, count: size.pointee).bindMemory(to: UInt8.self))
            size.pointee = 0
            return .YES
        }
        var request = MockHTTPRequest(
            method: String(cString: method), path: String(cString: url), query: Self.queryPairs(connection),
            authorization: MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization").map { String(cString: $0) },
            body: pending.data,
            contentType: MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map { String(cString: $0) })
        request.headers = Self.pairs(connection, .HEADER_KIND)
        request.clientPort = Self.clientPort(connection)
        let response = handler(request)
        let deadline = ContinuousClock.now + response.delay
        while ContinuousClock.now < deadline && !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        while let gate = response.gate, !gate.isOpen && !stopping.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        let created = response.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers { _ = MHD_add_response_header(created, name, value) }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    private static func clientPort(_ connection: OpaquePointer) -> UInt16 {
        guard let address = cmhd_client_address(connection) else { return 0 }
        switch Int32(address.pointee.sa_family) {
        case AF_INET: return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        case AF_INET6: return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        default: return 0
        }
    }

    private static func queryPairs(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        pairs(connection, .GET_ARGUMENT_KIND)
    }

    private static func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collector = PairCollector()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue().pairs
                .append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
        return withExtendedLifetime(collector) { collector.pairs }
    }
}

private final class PendingBody {
    var data = Data()
}

private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}

/// Why the mock refused something (a token, a start).
public struct MockServerError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
