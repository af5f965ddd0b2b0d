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

    @Test("issue 38: a few hot texts whose bytes share a home slot are all found without hashing their text")
    func textsSharingAHomeSlotStayRecent() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        // Texts kept alive (their bytes stay where they are), grouped by home slot.
        var texts: [String] = []
        var byHome: [Int: [Int]] = [:]
        for value in 0..<4_000 {
            let sql = String(repeating: " ", count: 20 + value % 5) + "SELECT \(value)"
            texts.append(sql)
            if let place = SQLiteConnection.textPlace(sql) { byHome[place.home, default: []].append(value) }
        }
        // Four texts with one home slot: each stays in one of the slots probed from it.
        let shared = try #require(byHome.values.first { $0.count >= 4 })
        let hot = shared.prefix(4)
        for _ in 0..<20 {
            for value in hot {
                #expect(try connection.query(texts[value]) { $0.int64(0) } == [Int64(value)])
            }
        }
        #expect(connection.lookupsByText == hot.count, "each text hashed once, when first prepared")
    }

    @Test("issue 38: short texts (small strings, copied to the stack for the lookup) are found without hashing their text")
    func shortTextsStayRecent() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        func run(_ sql: String, depth: Int) throws -> [Int64] {
            depth == 0 ? try connection.query(sql) { $0.int64(0) } : try run(sql, depth: depth - 1)
        }
        let texts = (0..<6).map { "SELECT \($0)" }
        for round in 0..<20 {
            for (value, sql) in texts.enumerated() {
                #expect(try run(sql, depth: (round + value) % 3) == [Int64(value)])
            }
        }
        #expect(connection.lookupsByText == texts.count, "each text hashed once, when first prepared")
    }

    @Test("issue 38: bindings are cleared only when needed, yet a parameter not bound again reads as NULL, as after sqlite3_clear_bindings")
    func unboundParametersReadNull() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        let sql = "SELECT ?1 IS NULL, ?2 IS NULL, ?3 IS NULL"
        func nulls(_ values: [SQLValue]) throws -> [Int64] {
            try connection.query(sql, values) { [$0.int64(0), $0.int64(1), $0.int64(2)] }.first ?? []
        }
        #expect(try nulls([.integer(1), .text("two"), .blob([3])]) == [0, 0, 0])
        #expect(try nulls([.integer(1), .text("two"), .blob([3])]) == [0, 0, 0])
        #expect(try nulls([.integer(1)]) == [0, 1, 1], "the earlier run's second and third values must not remain")
        #expect(try nulls([.text("a"), .text("b")]) == [0, 0, 1])
        #expect(try nulls([]) == [1, 1, 1])
        #expect(try nulls([.integer(1), .integer(2), .integer(3)]) == [0, 0, 0])
        // Stepped without any bind after the reset (as `statement` hands it out): all NULL.
        let statement = try connection.statement(sql)
        #expect(try statement.step())
        let row = SQLiteRow(statement: statement)
        #expect([row.int64(0), row.int64(1), row.int64(2)] == [1, 1, 1])
        statement.reset()
        #expect(try nulls([.integer(1), .integer(2), .integer(3)]) == [0, 0, 0])
        let again = try connection.statement(sql)
        try again.bind([.integer(7)])
        #expect(try again.step())
        let bound = SQLiteRow(statement: again)
        #expect([bound.int64(0), bound.int64(1), bound.int64(2)] == [0, 1, 1])
        again.reset()
    }
}
