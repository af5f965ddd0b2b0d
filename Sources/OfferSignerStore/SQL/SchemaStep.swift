/// A migration both engines take alike, written once: what `schema_migrations` records of it
/// and its statements in each engine's spelling. Each engine gives it the next number of its
/// own sequence (SQLite's version 8 is PostgreSQL's version 2).
struct SchemaStep: Sendable {
    let summary: String
    let sql: @Sendable (SchemaDialect) -> String
}
