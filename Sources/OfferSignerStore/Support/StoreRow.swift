/// A row of a query's result, read by column position, whichever engine ran it; the row
/// decoders both engines share (history, signatures, offers) take one.
protocol StoreRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func text(_ column: Int32) -> String
    /// Whether `column` holds `value`'s UTF-8 bytes (false when NULL): `text(column) == value`
    /// for a `value` no other text is canonically equivalent to (ASCII without `K`, `;`, `` ` ``,
    /// which U+212A, U+037E and U+1FEF decompose to), such as the environments' names.
    func text(_ column: Int32, is value: String) -> Bool
}

extension StoreRow {
    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    func text(_ column: Int32, is value: String) -> Bool { !isNull(column) && text(column) == value }
}
