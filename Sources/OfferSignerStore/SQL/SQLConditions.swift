/// A `WHERE` clause built from the filters a caller gave, with its values in placeholder order.
struct SQLConditions {
    private var clauses: [String] = []
    private(set) var values: [SQLValue] = []

    /// `clause` (with one `?`) bound to `value`.
    mutating func add(_ clause: String, _ value: SQLValue) {
        clauses.append(clause)
        values.append(value)
    }

    /// `column = value`, when a value is given.
    mutating func add(_ column: String, equals value: String?) {
        if let value { add("\(column) = ?", .text(value)) }
    }

    /// The conditions joined by `AND`.
    var sql: String { clauses.joined(separator: " AND ") }
}
