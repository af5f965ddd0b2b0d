import Foundation
@testable import OfferSignerStore

/// A database file in a fresh temporary folder, removed by `cleanup()`.
struct TemporaryDatabase {
    let folder: URL
    var path: String { folder.appendingPathComponent("test.sqlite").path }

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func open(maxPageCount: Int? = nil) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: path, maxPageCount: maxPageCount)
    }

    /// The database capped at its schema's size plus `extraPages` pages (whatever the schema's
    /// size), so that appends soon fill it up.
    func openNearlyFull(extraPages: Int = 6) throws -> SQLiteDatabase {
        let schemaPages = try open().write { db in try db.scalar("PRAGMA page_count") } ?? 0
        return try open(maxPageCount: Int(schemaPages) + extraPages)
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: folder)
    }
}
