/// A row of a query's result, read by column position, whichever engine ran it; the row
/// decoders both engines share (history, signatures, offers) take one.
protocol StoreRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func text(_ column: Int32) -> String
}

extension StoreRow {
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
}
