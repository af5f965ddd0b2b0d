import Foundation
import OfferSignerCore

/// `offer-signer history import FILE`: the NDJSON backfill of the HTTP import, read from a
/// file or standard input line by line, verified with the settings of `serve`.
public struct HistoryImportFile {
    public struct Outcome: Sendable {
        public let lines: Int
        public let accepted: Int
        public let duplicates: Int
        public let rejectedCount: Int
        /// The first rejections, with their line numbers.
        public let rejected: [(line: Int, reason: String)]
    }

    public let path: String

    /// `-` reads standard input.
    public init(path: String) {
        self.path = path
    }

    public func run(settings: ServiceSettings, stores: OfflineStores) throws -> Outcome {
        let configuration = try KeyConfiguration.load(path: settings.keys)
        let verification = try AppStoreVerification(roots: try AppStoreVerification.roots(from: settings.appleRoots),
                                                    environments: Set(settings.environments), configuration: configuration)
        let ingestor = HistoryIngestor(verification: verification, history: stores.history, clock: .system)
        let lines = path == "-" ? LineReader(handle: .standardInput) : try LineReader(url: URL(fileURLWithPath: path))
        let summary = try HistoryImport(ingestor: ingestor).run(lines)
        return Outcome(lines: summary.lines, accepted: summary.accepted, duplicates: summary.duplicates,
                       rejectedCount: summary.rejectedCount, rejected: summary.rejected.map { ($0.line, $0.reason) })
    }
}
