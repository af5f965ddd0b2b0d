import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One open connection as the server tracks it: its socket, and the deadline by which the
/// request being read must be whole. libmicrohttpd's own timeout restarts with every byte, so a
/// client trickling a byte a second would hold the connection for ever; this deadline does not.
///
/// The clock runs from the moment the connection is ready for a request (when it opens, or when
/// the previous response has been sent) until the request's head and body have arrived; each
/// body byte extends it a little (`allowancePerByte`), so that a large upload at a fair rate
/// finishes. A new connection has a shorter deadline (`firstLineTimeout`) for its first request
/// line: a client that connects and sends nothing holds a slot for seconds, not for the whole
/// request timeout. When the deadline passes, ``expire(now:)`` answers and shuts the socket
/// down, which ends libmicrohttpd's wait on it. While no request line is being read (a new
/// connection, or one kept alive after a response) the connection is idle, and the server may
/// close it at once to give its slot to a new client (``evictIfIdle()``).
final class ConnectionState: Sendable {
    /// The connection arrived with every slot taken (overall or for its address): it gets a 503
    /// instead of service.
    let overCapacity: Bool
    /// The client's numeric address.
    let address: String
    private let socket: Int32
    private let timeout: Duration
    private let firstLineTimeout: Duration
    private let allowancePerByte: Duration
    private let state: Mutex<Clock>

    private struct Clock {
        var deadline: ContinuousClock.Instant?
        var phase = Phase.awaitingRequest
        /// When the connection became ready for its current request (opened, or the previous
        /// response sent): the request timeout counts from here, and idleness too.
        var readySince: ContinuousClock.Instant
        /// The current request's request line has arrived.
        var lineReceived = false
        /// libmicrohttpd has closed (or is closing) the socket: it must not be touched.
        var closed = false
        /// The request line of the request being read had too many query parameters.
        var tooManyQueryParameters = false
    }

    private enum Phase {
        /// Connected, no request yet.
        case awaitingRequest
        /// The head has arrived; the body may be arriving.
        case receiving
        /// The application answers; the deadline does not run.
        case answering
        /// Kept alive after a response, waiting for the next request.
        case idle
    }

    /// - Parameters:
    ///   - timeout: the time a request's head and body may take to arrive.
    ///   - firstLineTimeout: the time a new connection's first request line may take (at most `timeout`).
    init(socket: Int32, address: String, overCapacity: Bool, timeout: Duration, firstLineTimeout: Duration? = nil,
         allowancePerByte: Duration) {
        self.socket = socket
        self.address = address
        self.overCapacity = overCapacity
        self.timeout = timeout
        self.firstLineTimeout = min(firstLineTimeout ?? timeout, timeout)
        self.allowancePerByte = allowancePerByte
        let now = ContinuousClock.now
        state = Mutex(Clock(deadline: now + self.firstLineTimeout, readySince: now))
    }

    /// The request line of a request has arrived: its head and body have the whole request
    /// timeout, counted from when the connection became ready for it.
    func requestLineReceived() {
        state.withLock { clock in
            guard !clock.closed, !clock.lineReceived else { return }
            clock.lineReceived = true
            if clock.deadline != nil { clock.deadline = clock.readySince + timeout }
        }
    }

    /// When the connection became idle (opened or kept alive, no request line since), and
    /// whether it is kept alive after a response; nil while a request is read or answered.
    var idleness: (since: ContinuousClock.Instant, keptAlive: Bool)? {
        state.withLock { clock in
            guard !clock.closed, !clock.lineReceived, clock.phase == .awaitingRequest || clock.phase == .idle else { return nil }
            return (clock.readySince, clock.phase == .idle)
        }
    }

    /// Closes the connection if it is idle (see ``idleness``), without an answer (it asked for
    /// nothing), so that its slot goes to another client; true when it did.
    func evictIfIdle() -> Bool {
        state.withLock { clock in
            guard !clock.closed, !clock.lineReceived, clock.phase == .awaitingRequest || clock.phase == .idle else { return false }
            clock.deadline = nil
            clock.closed = true  // libmicrohttpd closes it; nothing more is done to it here
            shutdown(socket, Int32(SHUT_RDWR))
            return true
        }
    }

    /// The head of a request has arrived; whether its request line had too many query parameters.
    func headReceived() -> Bool {
        state.withLock { clock in
            clock.phase = .receiving
            defer { clock.tooManyQueryParameters = false }
            return clock.tooManyQueryParameters
        }
    }

    /// The request line had more query parameters than the server parses.
    func refuseQuery() {
        state.withLock { $0.tooManyQueryParameters = true }
    }

    /// `count` more body bytes arrived.
    func bodyReceived(_ count: Int) {
        state.withLock { clock in
            clock.deadline = clock.deadline.map { $0 + allowancePerByte * count }
        }
    }

    /// The application answers: the request is whole, the clock stops.
    func answering() {
        state.withLock { clock in
            clock.phase = .answering
            clock.deadline = nil
        }
    }

    /// The response has been sent: the clock starts again for the next request.
    func responded() {
        state.withLock { clock in
            guard !clock.closed else { return }
            let now = ContinuousClock.now
            clock.phase = .idle
            clock.lineReceived = false
            clock.readySince = now
            clock.deadline = now + timeout
        }
    }

    /// libmicrohttpd closes the connection: its socket is no longer this object's to touch.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// If the deadline has passed: answers (503 over capacity, 408 for a request partly
    /// received, nothing on an idle kept-alive connection), shuts the socket down so that
    /// libmicrohttpd closes it, and returns true.
    @discardableResult
    func expire(now: ContinuousClock.Instant) -> Bool {
        state.withLock { clock in
            guard !clock.closed, let deadline = clock.deadline, now >= deadline else { return false }
            clock.deadline = nil
            let answer: String? = switch clock.phase {
            case .awaitingRequest, .receiving:
                overCapacity ? Self.rawAnswer(503, "Service Unavailable", retryAfter: true) : Self.rawAnswer(408, "Request Timeout")
            case .answering, .idle:
                nil
            }
            if let answer {
                // Never blocks: a client that does not read loses the answer, not a thread.
                _ = answer.utf8CString.withUnsafeBytes { bytes in
                    send(socket, bytes.baseAddress, bytes.count - 1, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
            }
            shutdown(socket, Int32(SHUT_RDWR))
            return true
        }
    }

    /// A whole response without a body, for a socket libmicrohttpd is not writing to.
    private static func rawAnswer(_ status: Int, _ reason: String, retryAfter: Bool = false) -> String {
        "HTTP/1.1 \(status) \(reason)\r\nConnection: close\r\n" + (retryAfter ? "Retry-After: 1\r\n" : "") + "Content-Length: 0\r\n\r\n"
    }
}
