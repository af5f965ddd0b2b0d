/// The state of a table of changes a mirror reflects: how many changes there are and the
/// newest's ID (a change committed late with a lower ID still changes the count).
struct ChangeStamp: Equatable, Sendable {
    let count: Int64
    let newest: Int64

    /// Before the first load: differs from every table's.
    static let unread = ChangeStamp(count: -1, newest: -1)

    /// The stamp of `table` (a table of changes with an `id` column).
    static func read(_ db: some SQLConnection, table: String) throws -> ChangeStamp {
        try db.first("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM \(table)") {
            ChangeStamp(count: $0.int64(0), newest: $0.int64(1))
        } ?? ChangeStamp(count: 0, newest: 0)
    }
}
