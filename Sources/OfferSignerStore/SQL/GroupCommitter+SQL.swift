extension GroupCommitter {
    /// Writes a batch inside an open transaction of the database.
    typealias SQLWriter = @Sendable (_ batch: [Item], _ db: any SQLConnection) throws -> [Result<Output, any Error>]

    /// A committer whose batches are each one transaction of `database`.
    convenience init(database: any SQLDatabase, name: String, observe: Observer? = nil, writeBatch: @escaping SQLWriter) {
        self.init(name: name, observe: observe) { batch in try database.inTransaction { db in try writeBatch(batch, db) } }
    }
}
