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
/// finishes. When it passes, ``expire(now:)`` answers and shuts the socket down, which ends
/// libmicrohttpd's wait on it.
final class ConnectionState: Sendable {
    /// The connection arrived with every slot taken (overall or for its address): it gets a 503
    /// instead of service.
    let overCapacity: Bool
    /// The client's numeric address.
    let address: String
    private let socket: Int32
    private let timeout: Duration
    private let allowancePerByte: Duration
    private let state: Mutex<Clock>

    private struct Clock {
        var deadline: ContinuousClock.Instant?
        var phase = Phase.awaitingRequest
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

    init(socket: Int32, address: String, overCapacity: Bool, timeout: Duration, allowancePerByte: Duration) {
        self.socket = socket
        self.address = address
        self.overCapacity = overCapacity
        self.timeout = timeout
        self.allowancePerByte = allowancePerByte
        state = Mutex(Clock(deadline: .now + timeout))
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
            clock.phase = .idle
            clock.deadline = .now + timeout
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
