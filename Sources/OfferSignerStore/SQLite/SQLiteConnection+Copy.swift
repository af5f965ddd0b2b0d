extension SQLiteConnection: CopyConnection {
    func copyCount(_ table: CopiedTable) throws -> Int {
        Int(try scalar("SELECT COUNT(*) FROM \(table.name)") ?? 0)
    }

    func copyRows(_ table: CopiedTable, after: [CopyValue]?, limit: Int) throws -> [[CopyValue]] {
        var sql = "SELECT \(table.columnList) FROM \(table.name)"
        var values: [SQLValue] = []
        if let after {
            sql += " WHERE (\(table.key.joined(separator: ", "))) > (\(table.key.map { _ in "?" }.joined(separator: ", ")))"
            values = after.map(Self.value)
        }
        sql += " ORDER BY \(table.key.joined(separator: ", ")) LIMIT \(limit)"
        return try query(sql, values) { row in
            table.columns.enumerated().map { index, column in
                let position = Int32(index)
                if row.isNull(position) { return .null }
                return column.kind == .integer ? .integer(row.int64(position)) : .text(row.text(position))
            }
        }
    }

    func copyInsert(_ table: CopiedTable, _ rows: [[CopyValue]]) throws {
        let sql = "INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(table.columns.map { _ in "?" }.joined(separator: ", ")))"
        for row in rows { try run(sql, row.map(Self.value)) }
    }

    func copyFinish() throws {}

    private static func value(_ value: CopyValue) -> SQLValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        }
    }
}
