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

    func cleanup() {
        try? FileManager.default.removeItem(at: folder)
    }
}
