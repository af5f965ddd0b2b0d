import OfferSignerHTTP

/// What a cursor-paged list endpoint was asked for: `?limit=` items (1–1000, 100 when absent)
/// after the position `?cursor=` names (the start without one).
struct PageRequest {
    let limit: Int
    let after: Int64

    init(_ query: [String: String]) throws(HTTPProblem) {
        if let text = query["limit"] {
            guard let limit = Int(text), (1...1000).contains(limit) else { throw .invalidRequest("'limit' must be 1–1000") }
            self.limit = limit
        } else {
            limit = 100
        }
        after = try PageCursor.decode(query["cursor"])
    }

    /// The cursor of the page after `rows` (read for this request): the last row's position
    /// when they fill the page, else nil.
    func nextCursor<Row>(after rows: [Row], position: (Row) -> Int64) -> String? {
        rows.count == limit ? rows.last.map { PageCursor.encode(position($0)) } : nil
    }

    /// `rows` (read for this request) as a page of their documents.
    func page<Row, Item: Encodable>(_ rows: [Row], position: (Row) -> Int64, _ document: (Row) -> Item) -> Page<Item> {
        Page(items: rows.map(document), nextCursor: nextCursor(after: rows, position: position))
    }
}
