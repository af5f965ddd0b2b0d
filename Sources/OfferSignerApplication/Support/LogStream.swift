import Foundation
import OfferSignerCore
import Synchronization

/// A file descriptor that log lines are written to, which never takes the process down: a
/// line that cannot be written whole (the disk under a redirected stream is full, a pipe's
/// reader is gone, the device fails) is dropped and counted, and once a line can be written
/// again one line saying how many were dropped goes first. Foundation's `FileHandle.write`
/// traps on such a failure; this writes with `write(2)`.
public final class LogStream: Sendable {
    /// The process's standard error, where ``Logger`` writes by default.
    public static let standardError = LogStream(descriptor: STDERR_FILENO)

    private let descriptor: Int32
    private let state = Mutex(State())

    private struct State {
        /// Lines dropped since the process started.
        var droppedTotal = 0
        /// Lines dropped since the last line written (reported with the next one).
        var droppedSinceWritten = 0

        mutating func dropped() {
            droppedTotal += 1
            droppedSinceWritten += 1
        }
    }

    /// Writes to `descriptor`, which it does not own (nor close).
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Lines dropped since the process started because they could not be written.
    public var droppedLines: Int { state.withLock { $0.droppedTotal } }

    /// Writes `line` and a newline; drops it when the write fails. Lines from several threads
    /// may be written at once, as `write(2)` writes them; after a failure, one at a time.
    public func write(_ line: String) {
        // The common case takes the lock only to look: lines of request threads are not
        // written one after another behind it.
        guard state.withLock({ $0.droppedSinceWritten }) > 0 else {
            if !writeWhole(line + "\n") { state.withLock { $0.dropped() } }
            return
        }
        state.withLock { state in
            if state.droppedSinceWritten > 0 {
                guard writeWhole(Self.droppedNotice(state.droppedSinceWritten, total: state.droppedTotal) + "\n") else {
                    state.dropped()
                    return
                }
                state.droppedSinceWritten = 0
            }
            if !writeWhole(line + "\n") { state.dropped() }
        }
    }

    /// The line written once writing works again after lines were dropped.
    static func droppedNotice(_ count: Int, total: Int) -> String {
        let object: [String: JSONValue] = [
            "time": .string(RFC3339.string(from: Date())), "level": .string("warning"),
            "message": .string("log lines were dropped: the log stream could not be written"),
            "dropped": .int(count), "droppedTotal": .int(total),
        ]
        guard let data = try? JSONCoding.encoder.encode(object) else { return #"{"level":"warning","message":"log lines were dropped"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes every byte of `text`, retrying interrupted and partial writes; false when the
    /// descriptor refuses (whatever was written of a partial line stays).
    private func writeWhole(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            var waits = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits < 100 {
                    // A non-blocking pipe that is full: wait a little for its reader, not for ever.
                    waits += 1
                    usleep(1_000)
                } else {
                    return false
                }
            }
            return true
        }
    }
}
