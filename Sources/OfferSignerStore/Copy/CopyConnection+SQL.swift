/// What `db copy` reads the same way on both engines.
extension SQLConnection {
    func copyCount(_ table: CopiedTable) throws -> Int {
        try first("SELECT COUNT(*) FROM \(table.name)") { $0.int(0) } ?? 0
    }

    func copyRows(_ table: CopiedTable, after: [CopyValue]?, limit: Int) throws -> [[CopyValue]] {
        var sql = "SELECT \(table.columnList) FROM \(table.name)"
        var values: [SQLValue] = []
        if let after {
            sql += " WHERE (\(table.key.joined(separator: ", "))) > (\(table.key.map { _ in "?" }.joined(separator: ", ")))"
            values = after.map(\.sqlValue)
        }
        sql += " ORDER BY \(table.key.joined(separator: ", ")) LIMIT \(limit)"
        return try select(sql, values) { row in
            table.columns.enumerated().map { index, column in
                let position = Int32(index)
                if row.isNull(position) { return .null }
                return column.kind == .integer ? .integer(row.int64(position)) : .text(row.text(position))
            }
        }
    }
}

extension CopyValue {
    var sqlValue: SQLValue {
        switch self {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        }
    }
}
