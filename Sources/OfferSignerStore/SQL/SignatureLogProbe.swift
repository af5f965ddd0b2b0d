/// The write a readiness probe makes in the log's writer transaction (``LogWrite/probe``): a
/// page of filler inserted and deleted again, so that it needs free pages and a durable commit
/// as an append would, and leaves nothing behind.
enum SignatureLogProbe {
    static func write(_ db: some SQLConnection) throws {
        try db.change("INSERT INTO signature_log_probe (filler) VALUES (?)", [.blob(filler)])
        try db.change("DELETE FROM signature_log_probe")
    }

    /// 4 KiB of zeros.
    private static let filler = [UInt8](repeating: 0, count: 4096)
}
