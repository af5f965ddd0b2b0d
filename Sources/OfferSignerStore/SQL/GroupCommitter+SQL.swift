extension GroupCommitter {
    /// A committer whose batches are each one transaction of `database`. `pipelined`: the
    /// writer does not wait for a batch's commit to be durable before taking the next; its
    /// callers do (``SQLDatabase/inTransactionDurableLater(_:)``: SQLite's WAL syncer; on
    /// PostgreSQL the commit is durable when it returns).
    convenience init<Database: SQLDatabase>(database: Database, name: String, observe: Observer? = nil, pipelined: Bool = false,
                                            writeBatch: @escaping @Sendable (_ batch: [Item], _ db: Database.Connection) throws
                                                -> [Result<Output, any Error>]) {
        if pipelined {
            self.init(name: name, observe: observe, pipelined: { batch in
                let written = try database.inTransactionDurableLater { db in try writeBatch(batch, db) }
                return (written.result, written.durability)
            })
        } else {
            self.init(name: name, observe: observe) { batch in try database.inTransaction { db in try writeBatch(batch, db) } }
        }
    }
}
