import Foundation
import OfferSignerCore

/// Checkpoints an auditor kept outside the database, read for `audit verify --checkpoints`.
/// The file is read line by line; each line may be a checkpoint as `audit checkpoints`
/// exports it, a line of the service's JSON log (lines that are not checkpoints are skipped,
/// and text before the line's `{` — a collector's prefix — is ignored), or a page of
/// `GET /v1/audit/checkpoints` (`{"items": [...]}`) on one line.
public struct CheckpointFile {
    public let checkpoints: [AuditCheckpoint]
    /// Lines read.
    public let lines: Int

    /// Reads the file at `path`, refusing a line that looks like a checkpoint but is not one.
    public init(path: String) throws(CheckpointFileError) {
        var reader: LineReader
        do {
            reader = try LineReader(url: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path)
        }
        var checkpoints: [AuditCheckpoint] = []
        var number = 0
        while let line = reader.next() {
            number += 1
            guard case .text(let text) = line else { throw .malformed(path: path, line: number, reason: "the line is longer than 1 MiB") }
            checkpoints += try Self.checkpoints(in: text, path: path, line: number)
        }
        guard !checkpoints.isEmpty else { throw .empty(path: path) }
        self.checkpoints = checkpoints
        lines = number
    }

    private struct Page: Decodable {
        let items: [AuditCheckpoint]
    }

    /// What a line is about, read without committing to its shape.
    private struct Marker: Decodable {
        let message: String?
        let chainHash: String?
        let isPage: Bool

        enum CodingKeys: String, CodingKey { case message, chainHash, items }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = try? container.decodeIfPresent(String.self, forKey: .message)
            chainHash = try? container.decodeIfPresent(String.self, forKey: .chainHash)
            isPage = container.contains(.items)
        }
    }

    /// The checkpoints on one line: none for a line that is not about checkpoints.
    static func checkpoints(in text: String, path: String, line: Int) throws(CheckpointFileError) -> [AuditCheckpoint] {
        guard let brace = text.firstIndex(of: "{") else { return [] }
        let json = Data(text[brace...].utf8)
        guard let marker = try? JSONDecoder().decode(Marker.self, from: json) else { return [] }
        do {
            if marker.isPage { return try JSONDecoder().decode(Page.self, from: json).items }
            guard marker.chainHash != nil || marker.message == AuditCheckpointer.logMessage else { return [] }
            return [try JSONDecoder().decode(AuditCheckpoint.self, from: json)]
        } catch {
            throw .malformed(path: path, line: line, reason: DecodingErrorText.describe(error))
        }
    }
}

/// Why a checkpoint file cannot be used.
public enum CheckpointFileError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String)
    case malformed(path: String, line: Int, reason: String)
    case empty(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot read this checkpoint file"
        case .malformed(let path, let line, let reason): "\(path), line \(line): not a checkpoint (\(reason))"
        case .empty(let path): "\(path): holds no checkpoint"
        }
    }
}
