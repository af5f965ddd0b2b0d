extension GroupCommitter {
    /// A committer whose batches are each one transaction of `database`, writing the items one
    /// after another with `write`.
    convenience init(database: any SQLDatabase, name: String, write: @escaping @Sendable (Item, any SQLConnection) throws -> Output) {
        self.init(name: name) { batch in
            try database.inTransaction { db in try batch.map { item in .success(try write(item, db)) } }
        }
    }
}
