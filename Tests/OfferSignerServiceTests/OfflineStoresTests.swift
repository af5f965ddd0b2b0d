import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import OfferSignerStore
import Testing

@Suite("Offline stores")
struct OfflineStoresTests {
    @Test("a database that does not exist is refused, naming its path, and nothing is created")
    func missing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("missing.sqlite").path
        #expect {
            try OfflineStores(path: path)
        } throws: { error in
            guard case StartupError.databaseMissing(let named) = error else { return false }
            return named == path && "\(error)".contains(path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(throws: StartupError.self, "a folder is not a database") { try OfflineStores(path: folder.path) }
    }

    @Test("an existing database opens; SQLiteDatabase refuses to create one when told not to")
    func existing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path, creating: false) }
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = try SQLiteDatabase(path: path)
        let stores = try OfflineStores(path: path)
        #expect(try stores.signatures.verifyIntegrity().ok)
    }
}
