import Foundation

/// Standard output and error written with `write(2)`: a write that fails (a full disk under a
/// redirected stream, a reader that went away) is reported, never a trap as Foundation's
/// `FileHandle.write` traps.
enum StandardStreams {
    /// Writes all of `text` to `descriptor`; false when it could not.
    @discardableResult
    static func write(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// Progress and notices on standard error: dropped when they cannot be written.
    static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Output that is the command's result (an export): a failed write ends the command.
    static func output(_ text: String) throws(OutputFailure) {
        guard write(text, to: STDOUT_FILENO) else { throw OutputFailure(reason: String(cString: strerror(errno))) }
    }

    /// Standard output could not be written, so the command's result is incomplete.
    struct OutputFailure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "standard output could not be written (\(reason)); the output is incomplete" }
    }
}
