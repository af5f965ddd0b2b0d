internal import CPostgreSQL

/// The rows of one statement's result, kept in libpq's memory until released.
final class PostgreSQLResult {
    private let handle: OpaquePointer

    init(takingOwnershipOf handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { PQclear(handle) }

    var count: Int { Int(PQntuples(handle)) }

    /// Rows a data-changing statement touched (`INSERT`, `UPDATE`, `DELETE`).
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    subscript(row: Int) -> PostgreSQLRow { PostgreSQLRow(result: self, index: Int32(row)) }

    /// Every row, mapped.
    func map<T>(_ transform: (PostgreSQLRow) throws -> T) rethrows -> [T] {
        var rows: [T] = []
        rows.reserveCapacity(count)
        for index in 0..<count { rows.append(try transform(self[index])) }
        return rows
    }

    fileprivate func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(handle, row, column) == 1 }

    fileprivate func text(_ row: Int32, _ column: Int32) -> String {
        guard let value = PQgetvalue(handle, row, column) else { return "" }
        return String(cString: value)
    }
}

/// One row of a result, in text format: integers are parsed from their text.
struct PostgreSQLRow: StoreRow {
    let result: PostgreSQLResult
    let index: Int32

    func isNull(_ column: Int32) -> Bool { result.isNull(index, column) }
    func text(_ column: Int32) -> String { result.text(index, column) }
    func int64(_ column: Int32) -> Int64 { Int64(text(column)) ?? 0 }
    /// A `boolean` column (`t` or `f`).
    func bool(_ column: Int32) -> Bool { text(column) == "t" }
}
