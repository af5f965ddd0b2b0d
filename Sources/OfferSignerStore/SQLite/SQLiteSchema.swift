/// The database schema, as numbered migrations applied in order (tracked by `user_version`).
enum SQLiteSchema {
    static let migrations: [String] = [
        // 1: the signature log, offer rules and their change history.
        """
        CREATE TABLE signatures (
            seq INTEGER PRIMARY KEY,
            nonce TEXT NOT NULL UNIQUE,
            format TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            key_id TEXT NOT NULL,
            timestamp_ms INTEGER NOT NULL,
            signature TEXT NOT NULL,
            transaction_id TEXT,
            api_key_name TEXT NOT NULL,
            request_id TEXT NOT NULL,
            recorded_at_ms INTEGER NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX signatures_by_user_offer ON signatures(user_id, offer_id, timestamp_ms);
        CREATE INDEX signatures_by_time ON signatures(timestamp_ms);
        CREATE TABLE offers (
            offer_id TEXT PRIMARY KEY,
            bundle_id TEXT NOT NULL,
            rule_json TEXT NOT NULL,
            version INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL
        );
        CREATE TABLE offer_changes (
            id INTEGER PRIMARY KEY,
            offer_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,
            api_key_name TEXT NOT NULL,
            changed_at_ms INTEGER NOT NULL,
            before_json TEXT,
            after_json TEXT
        );
        CREATE INDEX offer_changes_by_offer ON offer_changes(offer_id, id);
        """,
        // 2: verified App Store history.
        """
        CREATE TABLE notifications (
            notification_uuid TEXT PRIMARY KEY,
            notification_type TEXT NOT NULL,
            subtype TEXT,
            bundle_id TEXT,
            environment TEXT,
            signed_date_ms INTEGER NOT NULL,
            received_at_ms INTEGER NOT NULL,
            signed_payload TEXT NOT NULL
        );
        CREATE TABLE transactions (
            transaction_id TEXT PRIMARY KEY,
            original_transaction_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            user_id TEXT,
            purchase_ms INTEGER NOT NULL,
            expires_ms INTEGER,
            revocation_ms INTEGER,
            offer_type INTEGER,
            offer_id TEXT,
            offer_discount_type TEXT,
            price INTEGER,
            storefront TEXT,
            signed_date_ms INTEGER NOT NULL,
            environment TEXT,
            signed_transaction TEXT NOT NULL
        );
        CREATE INDEX transactions_by_user ON transactions(bundle_id, user_id);
        CREATE INDEX transactions_by_original ON transactions(original_transaction_id);
        CREATE INDEX transactions_by_product ON transactions(bundle_id, product_id);
        CREATE TABLE renewals (
            original_transaction_id TEXT PRIMARY KEY,
            product_id TEXT,
            auto_renew_status INTEGER,
            in_billing_retry INTEGER,
            grace_expires_ms INTEGER,
            signed_date_ms INTEGER NOT NULL,
            environment TEXT,
            signed_renewal_info TEXT NOT NULL
        );
        """,
        // 3: where the signature chain ends, written with every batch, so that records cut
        // off the end of the log are missed.
        """
        CREATE TABLE signature_chain_head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        INSERT INTO signature_chain_head (id, seq, hash)
            SELECT 1, seq, hash FROM signatures ORDER BY seq DESC LIMIT 1;
        """,
        // 4: offer activity for the console: refusals counted per day, offer and failed criterion
        // (criterion '' counts refused requests), and the signature log indexed by offer and time
        // so that signatures per offer and day are counted from the log itself.
        """
        CREATE TABLE offer_refusals_daily (
            bundle_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            day INTEGER NOT NULL,
            criterion TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, offer_id, day, criterion)
        ) WITHOUT ROWID;
        CREATE INDEX signatures_by_offer_time ON signatures(offer_id, timestamp_ms);
        """,
    ]

    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        let current = Int(try connection.scalar("PRAGMA user_version") ?? 0)
        guard current < migrations.count else { return }
        for version in current..<migrations.count {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(migrations[version])
                try connection.execute("PRAGMA user_version=\(version + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
