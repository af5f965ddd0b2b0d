import Foundation
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// `POST /v1/admin/history/import`: NDJSON backfill. The body is spooled to a temporary file
/// as it arrives and read back line by line, so a large import is never held in memory.
struct HistoryImportHandler {
    let ingestor: HistoryIngestor
    let logger: Logger
    /// The largest import accepted over HTTP (larger files: `offer-signer history import`).
    static let maxBodyBytes = 1 << 30

    func handle(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        guard let file = request.bodyFile else {
            throw HTTPProblem.unavailable("the upload could not be stored for reading (is the temporary directory full?)")
        }
        let ingestor = ingestor
        let summary: HistoryImport.Summary
        do {
            summary = try HistoryImport(ingestor: ingestor).run(try LineReader(url: file))
        } catch {
            logger.log(.error, "history import stopped", ["requestId": .string(context.requestId), "error": .string("\(error)")])
            throw HTTPProblem.unavailable("the import stopped because the history could not be written; items before the failure are stored, and importing again is safe")
        }
        logger.log(.info, "history imported", [
            "requestId": .string(context.requestId), "accepted": .int(summary.accepted),
            "duplicates": .int(summary.duplicates), "rejected": .int(summary.rejectedCount),
        ])
        return try HTTPResponse.json(summary)
    }
}

extension HistoryImportHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("POST", "/v1/admin/history/import", policy: .roles([]), accepts: ["application/x-ndjson"],
                   maxBodyBytes: HistoryImportHandler.maxBodyBytes, spoolBody: true, handler: handle(_:_:))
    }
}
