extension SchemaStep {
    /// Offer experiments (SQLite 14, PostgreSQL 8; it only adds). Experiments themselves are
    /// managed rules (`managed_rules`, kind `experiment`, with their changes).
    ///
    /// - `experiment_placements`: the experiment running on each placement, at most one (the
    ///   primary key), written with the experiment's start and stop.
    /// - `experiment_assignments`: each user's arm, recorded the first time the user reaches
    ///   the placement while the experiment runs, and never changed; with the weight period
    ///   it was drawn under, whether the user was ever eligible for the arm's offer, and the
    ///   first signature's time.
    static let experiments = SchemaStep(
        summary: "offer experiments: the running experiment of each placement, sticky assignments",
        sql: { d in """
            CREATE TABLE experiment_placements (
                bundle_id \(d.key) NOT NULL,
                placement_id \(d.key) NOT NULL,
                experiment_id \(d.key) NOT NULL,
                PRIMARY KEY (bundle_id, placement_id)
            );
            CREATE TABLE experiment_assignments (
                bundle_id \(d.key) NOT NULL,
                experiment_id \(d.key) NOT NULL,
                user_key \(d.key) NOT NULL,
                arm_id TEXT NOT NULL,
                weight_period \(d.integer) NOT NULL,
                environment TEXT NOT NULL,
                assigned_at_ms \(d.integer) NOT NULL,
                eligible \(d.integer) NOT NULL,
                first_signed_at_ms \(d.integer),
                PRIMARY KEY (bundle_id, experiment_id, user_key)
            );
            """ })
}
