/// `db copy` into SQLite: a row at a time, inside the one write transaction.
extension SQLiteConnection: CopyConnection {
    func copyInsert(_ table: CopiedTable, _ rows: [[CopyValue]]) throws {
        let sql = "INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(table.columns.map { _ in "?" }.joined(separator: ", ")))"
        for row in rows { try run(sql, row.map(\.sqlValue)) }
    }

    func copyFinish() throws {}
}
