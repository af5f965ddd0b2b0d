import Foundation
import OfferSignerCore
import OfferSignerStore

/// Records whose signature no client received, as far as the service knows it, for
/// `audit verify --service-log FILE`. When the signature log's append fails, the service
/// answers 503 and logs it at `error` (``SignatureRecorder/appendFailedMessage``, with the
/// request's `requestId` and the `nonces` of the records it tried to append). Most such
/// appends wrote nothing; but when the connection to PostgreSQL broke while `COMMIT` was under
/// way (a crash, a failover, a network cut), the commit may have gone through: the log then
/// holds the record, a valid entry (its nonce spent, its quota counted) whose signature was
/// never delivered. Nothing in the database marks it; the service's own log does, and this
/// reads it. Nonces are unique, so a client's retry (a new record, even under the same
/// `X-Request-Id`) is never mistaken for one.
public struct UndeliveredAnswers: Sendable {
    /// The nonces of the records whose append the service answered 503, from the log files.
    public let nonces: Set<String>

    /// Reads the service's log lines in the files at `paths` (other lines, and a collector's
    /// prefix before a line's `{`, are skipped).
    public init(serviceLogs paths: [String]) throws(ServiceLogFileError) {
        var nonces: Set<String> = []
        for path in paths {
            var reader: LineReader
            do {
                reader = try LineReader(url: URL(fileURLWithPath: path))
            } catch {
                throw .unreadable(path: path)
            }
            while let line = reader.next() {
                guard case .text(let text) = line else { continue }
                nonces.formUnion(Self.nonces(in: text))
            }
        }
        self.nonces = nonces
    }

    private struct Line: Decodable {
        let message: String?
        let nonces: [String]?
    }

    /// The nonces of a log line saying an append failed; none for any other line.
    static func nonces(in text: String) -> [String] {
        guard let brace = text.firstIndex(of: "{"),
              let line = try? JSONDecoder().decode(Line.self, from: Data(text[brace...].utf8)),
              line.message == SignatureRecorder.appendFailedMessage else { return [] }
        return line.nonces ?? []
    }

    /// The records of `log` with one of ``nonces``, in the log's order.
    public func records(in log: any SignatureLog) throws -> [LoggedSignature] {
        try nonces.compactMap { try log.signature(nonce: $0) }.sorted { $0.sequence < $1.sequence }
    }
}

/// Why a service log given to `audit verify --service-log` cannot be read.
public enum ServiceLogFileError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot read this service log"
        }
    }
}
