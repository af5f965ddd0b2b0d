extension PostgreSQLSchema {
    /// Retention answers kept per app and environment, as SQLite's version 10.
    static let version4 = PostgreSQLMigration(
        version: 4, summary: "retention answers keyed by app, environment and request identifier",
        sql: """
        ALTER TABLE retention_requests DROP CONSTRAINT retention_requests_pkey;
        ALTER TABLE retention_requests ALTER COLUMN bundle_id TYPE TEXT COLLATE "C", ALTER COLUMN environment TYPE TEXT COLLATE "C";
        ALTER TABLE retention_requests ADD PRIMARY KEY (bundle_id, environment, request_identifier);
        """)
}
