import Foundation

/// RFC 4180 CSV. A field that a spreadsheet would run as a formula (starting with `=`, `+`,
/// `-`, `@`, tab or carriage return; user IDs come from clients) gets a leading `'`. Both
/// checks look at code points, not characters: `=` or `,` followed by a combining mark is one
/// character to Swift, but still a formula or a separator to a spreadsheet.
public enum CSV {
    package static func row(_ fields: [String]) -> String {
        fields.map { field in
            let safe = field.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + field : field
            guard safe.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
                return safe
            }
            var quoted = String.UnicodeScalarView()
            quoted.append("\"")
            for scalar in safe.unicodeScalars {
                if scalar == "\"" { quoted.append("\"") }
                quoted.append(scalar)
            }
            quoted.append("\"")
            return String(quoted)
        }.joined(separator: ",") + "\r\n"
    }
}
