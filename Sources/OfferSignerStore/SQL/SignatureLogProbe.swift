/// The write a readiness probe makes in the log's writer transaction (``LogWrite/probe``): a
/// page of filler inserted and deleted again, so that it needs free pages and a durable commit
/// as an append would, and leaves nothing behind.
enum SignatureLogProbe {
    /// `filler` is the engine's SQL for 4 KiB of zeros, made by the database itself
    /// (`zeroblob(4096)`, `decode(repeat('00', 4096), 'hex')`), so nothing is bound or encoded.
    static func write(_ db: some SQLConnection, filler: String) throws {
        try db.change("INSERT INTO signature_log_probe (filler) VALUES (\(filler))")
        try db.change("DELETE FROM signature_log_probe")
    }
}
