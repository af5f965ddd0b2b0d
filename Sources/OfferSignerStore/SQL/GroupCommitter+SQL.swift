extension GroupCommitter {
    /// Writes a batch inside an open transaction of the database.
    /// A committer whose batches are each one transaction of `database`.
    convenience init<Database: SQLDatabase>(database: Database, name: String, observe: Observer? = nil,
                                            writeBatch: @escaping @Sendable (_ batch: [Item], _ db: Database.Connection) throws
                                                -> [Result<Output, any Error>]) {
        self.init(name: name, observe: observe) { batch in try database.inTransaction { db in try writeBatch(batch, db) } }
    }
}
