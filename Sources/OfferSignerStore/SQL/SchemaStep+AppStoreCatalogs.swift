extension SchemaStep {
    /// The App Store Connect catalog of each app (SQLite 15, PostgreSQL 9; it only adds).
    ///
    /// - `appstore_catalogs`: per app, the catalog of its last complete sync (a JSON document)
    ///   and when it ended, and the last attempt with its error, if it failed.
    static let appStoreCatalogs = SchemaStep(
        summary: "App Store Connect catalogs: each app's products and offers at Apple",
        sql: { d in """
            CREATE TABLE appstore_catalogs (
                bundle_id \(d.key) PRIMARY KEY,
                catalog_json TEXT,
                synced_at_ms \(d.integer),
                attempted_at_ms \(d.integer) NOT NULL,
                last_error TEXT
            );
            """ })
}
