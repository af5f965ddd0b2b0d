extension PostgreSQLConnection: CopyConnection {
    /// One statement per page: a column array each, unnested into rows.
    func copyInsert(_ table: CopiedTable, _ rows: [[CopyValue]]) throws {
        let arrays = table.columns.enumerated().map { index, column -> SQLValue in
            switch column.kind {
            case .integer:
                return .integerArray(rows.map { if case .integer(let number) = $0[index] { number } else { nil } })
            case .text:
                return .textArray(rows.map { if case .text(let text) = $0[index] { text } else { nil } })
            }
        }
        let unnested = table.columns.enumerated().map { index, column in
            "$\(index + 1)::\(column.kind == .integer ? "bigint" : "text")[]"
        }.joined(separator: ", ")
        try query("INSERT INTO \(table.name) (\(table.columnList)) SELECT * FROM unnest(\(unnested))", arrays)
    }

    /// Identity columns continue after the copied IDs, and the planner learns the tables'
    /// sizes now rather than when autovacuum gets to them (until then it may scan them whole).
    func copyFinish() throws {
        for table in ["offer_changes", "signature_checkpoints", "appstore_recovered_windows", "managed_rule_changes", "consent_events",
                      "offer_redemptions"] {
            try query("SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM \(table)")
        }
        try execute("ANALYZE \(CopiedTable.all.map(\.name).joined(separator: ", "))")
    }
}
