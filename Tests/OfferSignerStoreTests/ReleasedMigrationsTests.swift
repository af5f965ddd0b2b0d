import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// A released migration never changes: a database made by an earlier build must see exactly
/// the statements it would have run then. Each migration's version, summary and SQL are pinned
/// here by their SHA-256, as the releases ran them; a new migration adds its line.
@Suite("Released migrations")
struct ReleasedMigrationsTests {
    static func digest(_ version: Int, _ summary: String, _ sql: String) -> String {
        "\(version) " + SHA256Digest.hex(Array("\(version)\n\(summary)\n\(sql)".utf8))
    }

    @Test("SQLite's migrations are the statements each release ran, to the byte")
    func sqlite() {
        let digests = SQLiteSchema.migrations.map { Self.digest($0.version, $0.summary, $0.sql) }
        #expect(digests == [
            "1 6bdd4f3996f13bed4ff9ffced8c7e438371e059b2e0ec71b08793c35555270f4",
            "2 efc8543a34aefe69209bf7cc8c4a589f59fe317766a5584b5964b156daa9425f",
            "3 fcf06658b67dde1756aa697d43df49c5a1df6358dff56ae9aa884a85feba7577",
            "4 1900179fc89ebd28b73d6113531ddfb03c898fa0b431e5a60debc25a92926d0c",
            "5 2c47ed44e97810616b51555b876e997df85ea7ceb32a839e804d519b0673829e",
            "6 9cc9164a218b17a0f3375b930db299b2ed1e6ee8ace3f4fb4adeb6d54bf40ea7",
            "7 63953fbda9dbdb4b5062d33287219814121f16e3a7a3f13eda8c8d2cd4eafb15",
            "8 9ecd35744c6db76751c8a8b98e9e5b806c7cff2500e5ede3e9960651cbba9331",
            "9 f6e10fcbed079b87ee247d385fa5b38afae67318f41304703a32130935f916da",
            "10 b54e53143ed66d1366d55499d809baec5a1cd1075f0960a440f9a3499f6b8460",
            "11 9cad4a9045649eca1d3e7332a40be2e62a8914c2abefe73ffcd479f8b7cd4e47",
            "12 0759e1e8b7febf198b9c0b0774e61c262210ef858f8863e898a166b9d95ad01f",
            "13 bebf99e4f203528db0badb5e955bb3989a065abc55a37b92c871afa6bd05f70f",
            "14 faf4043c1230f8ca886220056e5e714574e2514dbb96ff997585fe45fa451d12",
            "15 f403ab9b2cde6ff07f5af9767bbfca4db5ad90cfd24493b0adf3ca5ab24c3226",
            "16 bb55b29290c5111d20fc53022c3fcf7e355e5aabd90ebf8904477845a25b312d",
            "17 21eb8eb1a92807d615dce1f29c2c119f55e0026931f5494277f3dfa2c7e3376c",
            "18 0be28e3981a1a51e3d5b77217cb68b8a2d9903757f3cd97face3bfe760a16759",
            "19 6e31ee6cb0e3fd03d63f642bf339b6c6b70f04a6918f3aeb0f362512c83a5e1b",
        ])
    }

    @Test("PostgreSQL's migrations are the statements each release ran, to the byte")
    func postgreSQL() {
        let digests = PostgreSQLSchema.migrations.map { Self.digest($0.version, $0.summary, $0.sql) }
        #expect(digests == [
            "1 347d1a3486c4ecee1bb6cb7814df62a86c1bdca62f0fc8547cbbc2e21b935620",
            "2 378caa8a77bb95772a17a1697ea4a84330f3ad9fe49f81f07fdea6f6fa028aad",
            "3 6416394d16a1ff37888570f9758a7e1a268b3eb99429f21419bbc5b12c959e6a",
            "4 12c7152c02b6e61e377cab1456d2da052ef34b1076525759f3279686bb5eb6dc",
            "5 fb7aa28adba65ca81900cc1962ceb0fa0a81c3a1a682d910c77e036368930319",
            "6 7391548346390e6706ee3a6de783b1dc6ce1d5c063405c29213e24f95629ac24",
            "7 8c02d9eb885df25edc46a7b1f4ff05c58752eab736b2d14013fcc1d6a392d5c7",
            "8 5c58766a6fc8bca4329d425ec6675b169730cf0585708403fe5cce2c5b148da6",
            "9 70bbb26151a78e09107cfc11981abba51211eed61bec7e2ded38190b4fc9ecf0",
            "10 26476230d9dec804c273cb0c8ac4d37b8c34328ade99f5743da35471f121fb4e",
            "11 b491fe792184c6fbf3c3cbfe96a0dc8dcb71a5180dcfa044ddbee7b33cd6cb48",
            "12 4504f552663dd59c2da6e42eaee5602299f9cb010bb1e3d6744de8d051f9b3d1",
        ])
    }
}
