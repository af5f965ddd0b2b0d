/// A value bound to a statement parameter, sent in PostgreSQL's text format.
enum PostgreSQLValue: Sendable {
    case null
    case integer(Int64)
    case text(String)
    /// A one-dimensional array, for `unnest($n::text[])` and `= ANY($n)`.
    case textArray([String?])
    case integerArray([Int64?])

    static func optional(_ text: String?) -> PostgreSQLValue { text.map { .text($0) } ?? .null }
    static func optional(_ number: Int64?) -> PostgreSQLValue { number.map { .integer($0) } ?? .null }

    /// The text form, or nil for SQL NULL.
    var text: String? {
        switch self {
        case .null: nil
        case .integer(let number): String(number)
        case .text(let text): text
        case .textArray(let items): Self.arrayLiteral(items.map { $0.map(Self.quoted) })
        case .integerArray(let items): Self.arrayLiteral(items.map { $0.map(String.init) })
        }
    }

    /// `{a,b,NULL}` from elements already in their literal form.
    private static func arrayLiteral(_ items: [String?]) -> String {
        "{" + items.map { $0 ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// An array element in double quotes, with `"` and `\` escaped, so any text (a comma, a
    /// brace, the word NULL) stays one element.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(character)
        }
        return out + "\""
    }
}
