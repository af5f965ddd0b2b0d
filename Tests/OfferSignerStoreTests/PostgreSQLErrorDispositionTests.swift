import Testing
@testable import OfferSignerStore

/// Every SQLSTATE class the service may meet is mapped once: unavailable (503, counted by
/// cause), a constraint (the store decides), or a fault (500).
@Suite("PostgreSQL errors: what each SQLSTATE means to the service")
struct PostgreSQLErrorDispositionTests {
    @Test("timeouts, conflicts, shutdowns, resources and a read-only server are the database unavailable; constraints are the store's; anything else a fault", arguments: [
        ("57014", PostgreSQLError.Disposition.unavailable(.statementTimeout)),
        ("55P03", .unavailable(.lockTimeout)),
        ("40001", .unavailable(.conflict)),
        ("40P01", .unavailable(.conflict)),
        ("40003", .unavailable(.conflict)),
        ("25006", .unavailable(.readOnly)),
        ("25P03", .unavailable(.statementTimeout)),
        ("57P01", .unavailable(.connectionLost)),
        ("57P03", .unavailable(.connectionLost)),
        ("08006", .unavailable(.connectionLost)),
        ("3D000", .unavailable(.connectionLost)),
        ("28P01", .unavailable(.connectionLost)),
        ("53100", .unavailable(.resources)),
        ("53200", .unavailable(.resources)),
        ("53300", .unavailable(.resources)),
        ("58030", .unavailable(.resources)),
        ("72000", .unavailable(.resources)),
        ("23505", .constraint),
        ("23503", .constraint),
        ("42P01", .fault),
        ("42501", .fault),
        ("22P02", .fault),
        ("0A000", .fault),
        ("54000", .fault),
        ("55000", .fault),
        ("P0001", .fault),
        ("XX001", .fault),
        ("25001", .fault),
    ])
    func disposition(sqlState: String, expected: PostgreSQLError.Disposition) {
        let error = PostgreSQLError(sqlState: sqlState, message: "test")
        #expect(error.disposition == expected, "\(sqlState)")
        #expect((error.unavailable != nil) == (expected != .constraint && expected != .fault))
    }

    @Test("a connection lost, or a server that did not answer in time, is unavailable whatever the state")
    func connectionFailures() {
        #expect(PostgreSQLError(message: "reset", connectionLost: true).disposition == .unavailable(.connectionLost))
        #expect(PostgreSQLError(message: "no answer", connectionLost: true, timedOut: true).disposition == .unavailable(.noAnswer))
        #expect(PostgreSQLError(message: "no state").disposition == .fault)
    }
}
