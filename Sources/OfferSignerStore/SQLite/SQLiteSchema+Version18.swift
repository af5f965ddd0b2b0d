extension SQLiteSchema {
    /// Experiment assignments kept in the order of their primary key (`WITHOUT ROWID`), the rows
    /// as they are. A placement request's read of the user's assignment is then one descent of
    /// one B-tree instead of the key's index and then the table, and a new user's assignment,
    /// written in the signature's commit, one B-tree insert instead of two (one page fewer in
    /// that commit); the report's scan in key order reads the rows themselves. SQLite's alone:
    /// a PostgreSQL table has no row ID to leave out (its heap and primary-key index stay).
    static let version18 = SQLiteMigration(
        version: 18, summary: "experiment assignments kept in the order of their key (WITHOUT ROWID)",
        sql: """
        CREATE TABLE experiment_assignments_v18 (
            bundle_id TEXT NOT NULL,
            experiment_id TEXT NOT NULL,
            user_key TEXT NOT NULL,
            arm_id TEXT NOT NULL,
            weight_period INTEGER NOT NULL,
            environment TEXT NOT NULL,
            assigned_at_ms INTEGER NOT NULL,
            eligible INTEGER NOT NULL,
            first_signed_at_ms INTEGER,
            PRIMARY KEY (bundle_id, experiment_id, user_key)
        ) WITHOUT ROWID;
        INSERT INTO experiment_assignments_v18 SELECT bundle_id, experiment_id, user_key, arm_id, weight_period, environment,
            assigned_at_ms, eligible, first_signed_at_ms
            FROM experiment_assignments ORDER BY bundle_id, experiment_id, user_key;
        DROP TABLE experiment_assignments;
        ALTER TABLE experiment_assignments_v18 RENAME TO experiment_assignments;
        """)
}
