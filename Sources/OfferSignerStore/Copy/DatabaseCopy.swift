import Foundation
import OfferSignerCore

/// `offer-signer db copy`: moves a whole deployment (offers and their change history, App
/// Store history and notifications, the signature log with its gaps, checkpoints and recorded
/// end) from one database to another, SQLite to PostgreSQL or back. The source is read in one
/// snapshot, the destination written in one transaction (all or nothing) and must be empty;
/// the destination's chain is then walked and must be intact and end where the source's ends.
public enum DatabaseCopy {
    /// What was copied and what the destination's integrity walk found.
    public struct Report: Sendable {
        /// Rows copied per table, in copy order.
        public var rows: [(table: String, count: Int)]
        /// The destination's integrity report.
        public var integrity: IntegrityReport
        /// The source's chain end, which the destination's must equal.
        public var sourceEnd: ChainLink
        public var destinationEnd: ChainLink

        /// The copy is whole and its chain intact.
        public var verified: Bool { integrity.ok && sourceEnd == destinationEnd }
    }

    /// Rows read and written per page.
    static let pageSize = 2000

    /// Copies `source` into `destination` (both opened, so at this build's schema).
    /// `progress` is told (table, rows done, rows in the table) after every page.
    public static func run(from source: Stores, to destination: Stores,
                           progress: (String, Int, Int) -> Void) throws -> Report {
        let copied = try source.readSnapshot { reader in
            try destination.writeTransaction { writer in
                for table in CopiedTable.all where try writer.copyCount(table) > 0 {
                    throw DatabaseCopyError.destinationNotEmpty(table: table.name)
                }
                var copied: [(table: String, count: Int)] = []
                for table in CopiedTable.all {
                    let total = try reader.copyCount(table)
                    var done = 0
                    var after: [CopyValue]?
                    progress(table.name, 0, total)
                    while true {
                        let rows = try reader.copyRows(table, after: after, limit: pageSize)
                        guard let last = rows.last else { break }
                        try writer.copyInsert(table, rows)
                        done += rows.count
                        after = table.keyPositions.map { last[$0] }
                        progress(table.name, done, total)
                    }
                    copied.append((table.name, done))
                }
                try writer.copyFinish()
                return copied
            }
        }
        let sourceEnd = try source.chainEnd()
        let destinationEnd = try destination.chainEnd()
        return Report(rows: copied, integrity: try destination.signatures.verifyIntegrity(), sourceEnd: sourceEnd,
                      destinationEnd: destinationEnd)
    }
}

/// Why a copy did not start.
public enum DatabaseCopyError: Error, CustomStringConvertible, Sendable {
    /// The destination already holds rows: a copy never merges two deployments.
    case destinationNotEmpty(table: String)

    public var description: String {
        switch self {
        case .destinationNotEmpty(let table):
            "the destination is not empty (its \(table) table has rows): copy into a new, empty database"
        }
    }
}
