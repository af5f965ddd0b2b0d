import Foundation
import OfferSignerCore
import OfferSignerStore

/// Backfills history from NDJSON: one signed item per line (`{"signedTransactionInfo": …}`,
/// `{"signedRenewalInfo": …}` or `{"signedPayload": …}`), each verified exactly like a
/// notification, stored in batches. Used by the HTTP import and `offer-signer history import`.
package struct HistoryImport {
    let ingestor: HistoryIngestor
    /// Lines verified and stored per transaction.
    var batchSize = 500
    /// Rejections listed in the summary; beyond this only counted.
    var maxListedRejections = 1000

    package init(ingestor: HistoryIngestor) {
        self.ingestor = ingestor
    }

    /// The outcome of an import.
    package struct Summary: Encodable, Equatable {
        var lines = 0
        package var accepted = 0
        package var duplicates = 0
        package var rejectedCount = 0
        var rejected: [Rejection] = []
    }

    struct Rejection: Encodable, Equatable {
        let line: Int
        let reason: String
    }

    private struct Item: Decodable {
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var signedPayload: String?
    }

    /// Imports every line; a storage failure stops the import and throws (what was stored stays).
    package func run(_ lines: some Sequence<LineReader.Line>) throws -> Summary {
        var summary = Summary()
        var pending: [(line: Int, item: HistoryItem)] = []
        func flush() throws {
            guard !pending.isEmpty else { return }
            let results = try ingestor.history.record(batch: pending.map(\.item))
            for changed in results {
                if changed { summary.accepted += 1 } else { summary.duplicates += 1 }
            }
            pending.removeAll(keepingCapacity: true)
        }
        func reject(_ line: Int, _ reason: String) {
            summary.rejectedCount += 1
            if summary.rejected.count < maxListedRejections { summary.rejected.append(Rejection(line: line, reason: reason)) }
        }
        for (offset, line) in lines.enumerated() {
            let number = offset + 1
            summary.lines = number
            guard case .text(let text) = line else {
                reject(number, "line is longer than 1 MiB")
                continue
            }
            if text.allSatisfy(\.isWhitespace) {
                summary.lines = number
                continue
            }
            switch verify(text) {
            case .success(let item): pending.append((number, item))
            case .failure(let refusal): reject(number, refusal.description)
            }
            if pending.count >= batchSize { try flush() }
        }
        try flush()
        return summary
    }

    /// Why a line was not imported.
    enum LineRefusal: Error, CustomStringConvertible {
        case notAnItem
        case ambiguousItem
        /// A key written twice in one object (its path): a reader could take either copy.
        case duplicateKey(String)
        case refused(SignedItemRefusal)

        var description: String {
            switch self {
            case .notAnItem: "not a JSON object with signedTransactionInfo, signedRenewalInfo or signedPayload"
            case .ambiguousItem: "each line needs exactly one of signedTransactionInfo, signedRenewalInfo or signedPayload"
            case .duplicateKey(let path): "the key '\(path)' appears twice"
            case .refused(let refusal): refusal.description
            }
        }
    }

    private func verify(_ text: String) -> Result<HistoryItem, LineRefusal> {
        guard let item = try? JSONDecoder().decode(Item.self, from: Data(text.utf8)) else { return .failure(.notAnItem) }
        if let duplicate = JSONDuplicateKeys.first(in: text.utf8) {
            return .failure(.duplicateKey(duplicate.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")))
        }
        let verified: Result<HistoryItem, SignedItemRefusal>
        switch (item.signedTransactionInfo, item.signedRenewalInfo, item.signedPayload) {
        case (let jws?, nil, nil): verified = Result { () throws(SignedItemRefusal) in try ingestor.verifyTransaction(jws) }
        case (nil, let jws?, nil): verified = Result { () throws(SignedItemRefusal) in try ingestor.verifyRenewal(jws) }
        case (nil, nil, let jws?): verified = Result { () throws(SignedItemRefusal) in try ingestor.verifyNotification(jws) }
        default: return .failure(.ambiguousItem)
        }
        return verified.mapError { .refused($0) }
    }
}
