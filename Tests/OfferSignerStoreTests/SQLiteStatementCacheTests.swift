import Foundation
import Testing
@testable import OfferSignerStore

@Suite("SQLite's prepared statements, cached by connection")
struct SQLiteStatementCacheTests {
    @Test("issue 38: a statement found by where its text's bytes are is used only for that text (texts made at run time, freed and their memory reused)")
    func recentSlotsConfirmTheText() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        // Each text is built at run time and freed after its query, so later texts often land
        // at the same address with other contents: only the text may decide the statement.
        for round in 0..<3 {
            for value in 0..<200 {
                let sql = String(repeating: " ", count: 20 + value % 7) + "SELECT \(value * 1000 + round)"
                let rows = try connection.query(sql) { $0.int64(0) }
                #expect(rows == [Int64(value * 1000 + round)], "\(sql)")
            }
        }
        // The same literal many times: the same statement, rows as asked.
        for value in 0..<50 {
            #expect(try connection.query("SELECT ?", [.integer(Int64(value))]) { $0.int64(0) } == [Int64(value)])
        }
    }
}
