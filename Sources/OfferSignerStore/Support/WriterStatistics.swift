import Synchronization

/// What a database's writer has done since this process opened it: the signature log's
/// group-commit batches and the records in them, and, on SQLite, the WAL frames (pages) its
/// commits appended and the checkpoints that copied them into the database file. For metrics
/// and the benchmark (pages per batch, records per batch); nothing reads them to decide.
public final class WriterStatistics: Sendable {
    private let batches = Atomic<Int>(0)
    private let records = Atomic<Int>(0)
    private let walFrames = Atomic<Int>(0)
    private let backgroundCheckpoints = Atomic<Int>(0)
    private let writerCheckpoints = Atomic<Int>(0)

    /// The counts at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Signature log batches committed (each one transaction, one sync).
        public var batches: Int
        /// Records appended by those batches.
        public var records: Int
        /// WAL frames appended by every commit of the writer connection (SQLite; 0 on PostgreSQL).
        public var walFrames: Int
        /// Checkpoints run off the writer's path, by the checkpoint thread (SQLite).
        public var backgroundCheckpoints: Int
        /// Checkpoints the writer ran itself because the WAL outgrew its bound (SQLite).
        public var writerCheckpoints: Int
    }

    public init() {}

    public var snapshot: Snapshot {
        Snapshot(batches: batches.load(ordering: .relaxed), records: records.load(ordering: .relaxed),
                 walFrames: walFrames.load(ordering: .relaxed),
                 backgroundCheckpoints: backgroundCheckpoints.load(ordering: .relaxed),
                 writerCheckpoints: writerCheckpoints.load(ordering: .relaxed))
    }

    func recordBatch(records count: Int) {
        batches.add(1, ordering: .relaxed)
        records.add(count, ordering: .relaxed)
    }

    func recordWALFrames(_ count: Int) {
        walFrames.add(count, ordering: .relaxed)
    }

    func recordCheckpoint(onWriter: Bool) {
        if onWriter {
            writerCheckpoints.add(1, ordering: .relaxed)
        } else {
            backgroundCheckpoints.add(1, ordering: .relaxed)
        }
    }
}
