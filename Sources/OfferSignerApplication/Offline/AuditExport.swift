import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer audit export`: streams the signature log as CSV or NDJSON, page by page.
public struct AuditExport {
    public enum Format: String, Sendable {
        case csv
        case ndjson
    }

    public let format: Format
    public let filter: SignatureFilter

    public init(format: Format, filter: SignatureFilter) {
        self.format = format
        self.filter = filter
    }

    /// Writes every matching record to `write`, oldest first; returns how many.
    @discardableResult
    public func run(_ log: any SignatureLog, write: (String) throws -> Void) throws -> Int {
        if format == .csv { try write(CSV.row(SignatureRecordDocument.csvHeader)) }
        var after: Int64 = 0
        var count = 0
        while true {
            let page = try log.signatures(matching: filter, afterSequence: after, limit: 1000)
            for entry in page {
                let document = SignatureRecordDocument(entry: entry)
                switch format {
                case .csv: try write(CSV.row(document.csvFields))
                case .ndjson: try write(String(decoding: try JSONCoding.encoder.encode(document), as: UTF8.self) + "\n")
                }
            }
            count += page.count
            guard let last = page.last, page.count == 1000 else { return count }
            after = last.sequence
        }
    }
}
