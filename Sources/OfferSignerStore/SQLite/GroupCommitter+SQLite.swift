extension GroupCommitter {
    /// Writes a batch inside an open IMMEDIATE transaction of the SQLite writer connection.
    typealias SQLiteWriter = @Sendable (_ batch: [Item], _ db: SQLiteConnection) throws -> [Result<Output, any Error>]

    /// A committer whose batches are each one write transaction of `database`.
    convenience init(database: SQLiteDatabase, name: String, observe: Observer? = nil, writeBatch: @escaping SQLiteWriter) {
        self.init(name: name, observe: observe) { batch in try database.write { db in try writeBatch(batch, db) } }
    }
}
