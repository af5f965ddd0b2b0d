import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database's WAL file (`<path>-wal`), opened by the WAL's syncer (``SQLiteWALSyncer``) to
/// sync it: `fdatasync` makes durable every `write` to the file that returned before it was
/// called, through any descriptor, and SQLite has written a commit's frames (`pwrite`) before
/// its `COMMIT` returns. Read-only is enough to sync on Linux.
///
/// Before each sync the descriptor is checked against the file at the path (`fstat` against
/// `stat`: device and inode): SQLite keeps its WAL while any of its connections is open, which
/// is for this database's lifetime, but should the path ever name another file, the old one is
/// synced as well and the new one opened. Used by the syncer's thread only.
final class SQLiteWALFile: @unchecked Sendable { // @unchecked: its descriptor is used by the syncer's one thread only
    /// Syncs the file open on a descriptor: 0, or the `errno` of the failure. Injectable, so a
    /// test can block a sync or fail it (EIO, ENOSPC).
    typealias Sync = @Sendable (_ descriptor: Int32) -> Int32

    /// `fdatasync(2)` (`fsync` where there is none).
    static let dataSync: Sync = { descriptor in
        #if os(Linux)
        return fdatasync(descriptor) == 0 ? 0 : errno
        #else
        return fsync(descriptor) == 0 ? 0 : errno
        #endif
    }

    let path: String
    private let sync: Sync
    private var descriptor: Int32 = -1
    private var device: UInt64 = 0
    private var inode: UInt64 = 0

    /// The WAL of the database at `databasePath`.
    init(databasePath: String, sync: @escaping Sync = SQLiteWALFile.dataSync) {
        path = databasePath + "-wal"
        self.sync = sync
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Syncs the WAL file: nil once every write to it that returned before this call is durable,
    /// or what failed (opening it, or the sync's `errno`).
    func syncNow() -> String? {
        var current = stat()
        guard stat(path, &current) == 0 else { return "stat \(path): \(Self.describe(errno))" }
        if descriptor >= 0, UInt64(current.st_dev) != device || UInt64(current.st_ino) != inode {
            // Another file at the path: what was written to the old one is synced before it is let go.
            let status = sync(descriptor)
            close(descriptor)
            descriptor = -1
            if status != 0 { return "fdatasync \(path) (the file it was before): \(Self.describe(status))" }
        }
        if descriptor < 0 {
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { return "open \(path): \(Self.describe(errno))" }
            var status = stat()
            guard fstat(opened, &status) == 0 else {
                let failure = errno
                close(opened)
                return "fstat \(path): \(Self.describe(failure))"
            }
            descriptor = opened
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
        let status = sync(descriptor)
        return status == 0 ? nil : "fdatasync \(path): \(Self.describe(status))"
    }

    private static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
