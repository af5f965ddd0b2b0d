/// Statements are written once with `?` placeholders; PostgreSQL numbers its parameters
/// (`$1`, `$2`…). The rendering is made once per statement and connection, when the statement
/// is prepared (see `PostgreSQLConnection`), never per call.
enum SQLPlaceholders {
    /// `sql` with each `?` that stands outside a string literal, a quoted identifier and a
    /// comment replaced by `$1`, `$2`… in order. A statement already numbered (no `?`) is
    /// returned as it is.
    static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var scalars = sql.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "?":
                count += 1
                out += "$\(count)"
                continue
            case "'", "\"":
                // A literal or quoted identifier, to its closing quote (a doubled quote is one
                // quote inside it and closes and reopens, which copies the same).
                out.unicodeScalars.append(scalar)
                while let inner = scalars.popFirst() {
                    out.unicodeScalars.append(inner)
                    if inner == scalar { break }
                }
                continue
            case "-" where scalars.first == "-":
                out.unicodeScalars.append(scalar)
                while let inner = scalars.popFirst() {
                    out.unicodeScalars.append(inner)
                    if inner == "\n" { break }
                }
                continue
            case "/" where scalars.first == "*":
                out.unicodeScalars.append(scalar)
                out.unicodeScalars.append(scalars.removeFirst())
                var previous: Unicode.Scalar = " "
                while let inner = scalars.popFirst() {
                    out.unicodeScalars.append(inner)
                    if previous == "*" && inner == "/" { break }
                    previous = inner
                }
                continue
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
