/// How a bound value is sent to PostgreSQL: in its text format.
extension SQLValue {
    /// The text form, or nil for SQL NULL.
    var postgreSQLText: String? {
        switch self {
        case .null: nil
        case .integer(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): "\\x" + bytes.map { String($0 >> 4, radix: 16) + String($0 & 0xf, radix: 16) }.joined()
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
