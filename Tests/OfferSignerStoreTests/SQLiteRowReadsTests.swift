import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// `SQLiteRow.text(_:is:)` (issue 38) against what it stands for, `text(column) == value`, and
/// the history's environments read with it against `AppStoreEnvironment(rawValue: row.text(column))`.
@Suite("SQLite's texts compared in place agree with the texts made")
struct SQLiteRowReadsTests {
    @Test("issue 38: NULL, empty text and BLOB, 0, embedded NUL, invalid UTF-8, near-miss names")
    func agreeWithTwoCallReads() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        var values: [SQLValue] = [.null, .text(""), .blob([]), .integer(0), .integer(5), .integer(-1), .text("0")]
        for environment in AppStoreEnvironment.allCases {
            let name = environment.rawValue
            values += [.text(name), .text(name.lowercased()), .text(name + " "), .text(" " + name), .text(String(name.dropLast())),
                       .blob(Array(name.utf8) + [0, 0x78]), .blob(Array(name.utf8) + [0xFF]), .blob(Array(name.utf8))]
        }
        values += [.text("\u{212A}"), .text("K"), .blob([0xFF, 0xFE]), .text("Pröduction")]
        for value in values {
            try connection.run("INSERT INTO t (v) VALUES (?)", [value])
            // The same bytes stored as TEXT, as a history column holds them.
            if case .blob(let bytes) = value { try connection.run("INSERT INTO t (v) VALUES (CAST(? AS TEXT))", [.blob(bytes)]) }
        }
        // Not "K": U+212A KELVIN SIGN is canonically equivalent to it, so `String` equality says equal
        // where the bytes differ (`text(_:is:)` is for names without such a twin).
        let names = AppStoreEnvironment.allCases.map(\.rawValue) + ["", "production", "Production "]
        let rows = try connection.query("SELECT v FROM t ORDER BY id") { row in
            for name in names {
                #expect(row.text(0, is: name) == (!row.isNull(0) && row.text(0) == name), "\(name)")
            }
            #expect(HistoryRows.environment(row, 0) == (row.isNull(0) ? nil : AppStoreEnvironment(rawValue: row.text(0))))
            return HistoryRows.environment(row, 0)
        }
        #expect(rows.count >= values.count)
        #expect(Set(rows.compactMap { $0 }) == Set(AppStoreEnvironment.allCases), "each name read back as its environment")
    }
}
