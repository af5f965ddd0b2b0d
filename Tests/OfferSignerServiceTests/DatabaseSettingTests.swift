import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import OfferSignerStore
import Testing

@Suite("The database setting")
struct DatabaseSettingTests {
    @Test("a path is SQLite, postgresql:// and postgres:// are PostgreSQL, any other scheme stops start-up naming it")
    func schemes() throws {
        #expect(try DatabaseLocation("var/offer-signer.sqlite") == .sqlite(path: "var/offer-signer.sqlite"))
        #expect(try DatabaseLocation("/srv/a:b/db.sqlite") == .sqlite(path: "/srv/a:b/db.sqlite"))
        #expect(try DatabaseLocation("postgresql://u@h/db") == .postgreSQL(url: "postgresql://u@h/db"))
        #expect(try DatabaseLocation("POSTGRES://u@h:5433/db?sslmode=require") == .postgreSQL(url: "POSTGRES://u@h:5433/db?sslmode=require"))
        #expect(throws: DatabaseLocationError.unsupportedScheme("mysql")) { try DatabaseLocation("mysql://x") }
        #expect(throws: DatabaseLocationError.empty) { try DatabaseLocation("") }

        do {
            _ = try ServiceSettings.resolve(arguments: ["--database", "mysql://root:hunter2@db/app"], environment: [:])
            Issue.record("mysql:// was accepted")
        } catch {
            #expect(error.description.contains("OFFER_SIGNER_DATABASE/--database"))
            #expect(error.description.contains("'mysql://'"))
            #expect(!error.description.contains("hunter2"), "the password never appears in a message")
        }
        let settings = try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_DATABASE": "postgres://a@b/c"])
        #expect(try settings.databaseLocation == .postgreSQL(url: "postgres://a@b/c"))
    }

    @Test("a PostgreSQL URL is shown with its password hidden")
    func redacted() throws {
        #expect(try DatabaseLocation("postgresql://signer:s3cr%40t@db.internal:5432/offers?sslmode=verify-full").description
                == "postgresql://signer:***@db.internal:5432/offers?sslmode=verify-full")
        #expect(try DatabaseLocation("postgresql://db/offers?user=signer&password=s3cret&sslmode=require").description
                == "postgresql://db/offers?user=signer&password=***&sslmode=require")
        #expect(try DatabaseLocation("postgresql://signer@db/offers").description == "postgresql://signer@db/offers")
    }

    @Test("serve refuses a PostgreSQL server it cannot reach, naming the URL without its password")
    func unreachable() throws {
        let environment = try TestEnvironment()
        var settings = ServiceSettings()
        settings.keys = environment.keysPath
        settings.listen = "127.0.0.1:0"
        settings.database = "postgresql://signer:hunter2@127.0.0.1:1/offers?connect_timeout=2"
        settings.appleRoots = [TestAppStore.folder.appendingPathComponent("root.pem").path]
        do {
            _ = try ServiceRuntime(settings: settings, logger: .silent)
            Issue.record("started without a database")
        } catch {
            #expect(error.description.hasPrefix("postgresql://signer:***@127.0.0.1:1/offers"), "\(error.description)")
            #expect(!error.description.contains("hunter2"))
        }
    }
}
