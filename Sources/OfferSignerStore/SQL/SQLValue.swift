import Foundation

/// A value bound to a statement parameter, whichever engine runs the statement.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    /// A list of texts, for ``SQLConnection/isOne(of:)``: an array on PostgreSQL
    /// (`unnest($n::text[])`, `= ANY($n)`), a JSON array on SQLite (`json_each(?)`).
    case textArray([String?])
    /// A list of integers, as ``textArray(_:)``.
    case integerArray([Int64?])

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    static func optional(_ number: Int64?) -> SQLValue { number.map { .integer($0) } ?? .null }
    /// A `LIMIT`: below zero is zero (SQLite would read a negative limit as none).
    static func limit(_ count: Int) -> SQLValue { .integer(Int64(max(0, count))) }

    /// A list as a JSON array (how SQLite takes one, through `json_each`).
    var jsonArray: String? {
        switch self {
        case .textArray(let items): String(decoding: (try? JSONEncoder().encode(items)) ?? Data("[]".utf8), as: UTF8.self)
        case .integerArray(let items): "[" + items.map { $0.map(String.init) ?? "null" }.joined(separator: ",") + "]"
        default: nil
        }
    }
}
