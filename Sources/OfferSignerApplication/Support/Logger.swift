import Foundation
import OfferSignerCore

/// Structured JSON lines on standard error, filtered by level. Callers pass only values
/// that are safe to log: never a token, a key or a signature.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let minimumLevel: Level
    private let write: @Sendable (String) -> Void

    public init(minimumLevel: Level = .info, write: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.minimumLevel = minimumLevel
        self.write = write
    }

    /// Whether lines of `level` are written (to skip building fields that would be dropped).
    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    /// Writes one JSON object line with `time`, `level`, `message` and `fields`.
    public func log(_ level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        guard level >= minimumLevel else { return }
        logAlways(level, message, fields)
    }

    /// `log` whatever the minimum level: for lines the log pipeline must keep whatever the
    /// operator filters out (signed audit checkpoints).
    public func logAlways(_ level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        var object: [String: JSONValue] = fields
        object["time"] = .string(RFC3339.string(from: Date()))
        object["level"] = .string(level.name)
        object["message"] = .string(message)
        guard let data = try? JSONCoding.encoder.encode(object) else { return }
        write(String(decoding: data, as: UTF8.self))
    }

    /// Writes to ``LogStream/standardError``: a line that cannot be written (a full disk under
    /// a redirected stream) is dropped and counted, never a crash.
    public static let standardError: @Sendable (String) -> Void = { line in
        LogStream.standardError.write(line)
    }

    /// Drops everything (for tests).
    public static let silent = Logger(minimumLevel: .error) { _ in }
}
