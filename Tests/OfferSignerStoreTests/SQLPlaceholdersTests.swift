import Testing
@testable import OfferSignerStore

@Suite("Statements written once: placeholders rendered per engine")
struct SQLPlaceholdersTests {
    @Test("each ? becomes $1, $2… in order")
    func numbered() {
        #expect(SQLPlaceholders.numbered("SELECT a FROM t WHERE b = ? AND c > ? LIMIT ?") == "SELECT a FROM t WHERE b = $1 AND c > $2 LIMIT $3")
        #expect(SQLPlaceholders.numbered("INSERT INTO t (a, b) VALUES (?,?)") == "INSERT INTO t (a, b) VALUES ($1,$2)")
        #expect(SQLPlaceholders.numbered("SELECT 1 WHERE x = ANY(?::text[])") == "SELECT 1 WHERE x = ANY($1::text[])")
    }

    @Test("a ? inside a string literal, a quoted identifier or a comment stays")
    func literalsStay() {
        #expect(SQLPlaceholders.numbered("SELECT '?' , ? FROM t") == "SELECT '?' , $1 FROM t")
        #expect(SQLPlaceholders.numbered("SELECT 'it''s ?', ? WHERE a = 'x?y'") == "SELECT 'it''s ?', $1 WHERE a = 'x?y'")
        #expect(SQLPlaceholders.numbered("SELECT \"odd?name\" FROM t WHERE a = ?") == "SELECT \"odd?name\" FROM t WHERE a = $1")
        #expect(SQLPlaceholders.numbered("SELECT a -- why?\nFROM t WHERE b = ?") == "SELECT a -- why?\nFROM t WHERE b = $1")
        #expect(SQLPlaceholders.numbered("SELECT a /* what? */ FROM t WHERE b = ?") == "SELECT a /* what? */ FROM t WHERE b = $1")
    }

    @Test("a statement without ? (already numbered, or without parameters) is returned as it is")
    func unchanged() {
        for sql in ["SELECT 1", "SELECT a FROM t WHERE b = $1 AND c = $2", "SELECT '' FROM t WHERE a = 'x'"] {
            #expect(SQLPlaceholders.numbered(sql) == sql)
        }
    }

    @Test("PostgreSQL runs a statement written with ? and a ? in a literal")
    func onPostgreSQL() throws {
        let database = try EngineDatabase(.postgreSQL)
        defer { database.cleanup() }
        guard case .postgreSQL(let url) = database.location else { return }
        let postgreSQL = try PostgreSQLDatabase(url: url)
        let answer = try postgreSQL.withReader(.serving) { db in
            try db.first("SELECT ?::text || '?' || ?::text", [.text("a"), .text("b")]) { $0.text(0) }
        }
        #expect(answer == "a?b")
    }
}
