import Foundation
import Testing

/// The problem codes the service answers with are the ones openapi.yaml documents, and the
/// console has words for the refusals of issues 33 and 34 (proof_mismatch, consent_rescinded,
/// chain_regressed…) and of the offers created at Apple (issue 36): shown in words, never as a
/// bare code or a generic title.
@Suite("Problem codes: documented, and worded in the console")
struct ProblemCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every `code: "…"` a problem is built with in the service's sources.
    static func codesInSources() throws -> Set<String> {
        var codes: Set<String> = []
        let folder = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let pattern = try Regex(#"code: "([a-z_]+)""#)
        for file in files where file.pathExtension == "swift" {
            let source = try String(contentsOf: file, encoding: .utf8)
            for match in source.matches(of: pattern) {
                if let code = match.output[1].substring { codes.insert(String(code)) }
            }
        }
        return codes
    }

    /// The `code` enum of openapi.yaml's Problem schema.
    static func documentedCodes() throws -> Set<String> {
        let openapi = try text("openapi.yaml")
        let schema = try #require(openapi.range(of: "\n    Problem:\n      type: object"))
        let rest = openapi[schema.upperBound...]
        let start = try #require(rest.range(of: "enum: ["))
        let end = try #require(rest[start.upperBound...].firstIndex(of: "]"))
        return Set(rest[start.upperBound..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    @Test("every code the service answers a problem with is in openapi.yaml's Problem code enum")
    func documented() throws {
        let sources = try Self.codesInSources()
        #expect(sources.count > 20, "the scan found the codes (\(sources.sorted()))")
        let documented = try Self.documentedCodes()
        #expect(sources.isSubset(of: documented), "undocumented: \(sources.subtracting(documented).sorted())")
    }

    @Test("the console's wording table has words for the refusals of issues 33 and 34, each a documented code")
    func worded() throws {
        let table = try Self.text("Sources/OfferSignerConsole/Assets/problems.js")
        let keys = Set(table.matches(of: try Regex(#"(?m)^  ([a-z_]+): '"#)).compactMap { $0.output[1].substring.map(String.init) })
        let documented = try Self.documentedCodes()
        for code in ["proof_required", "proof_mismatch", "invalid_signed_data", "consent_rescinded", "not_eligible", "chain_regressed",
                     "signing_key_unavailable",
                     // Issue 36: creating, re-pricing and deleting offers at Apple from the console.
                     "appstore_connect_not_configured", "product_not_at_apple", "promotional_offer_not_found", "offer_code_taken",
                     "promotional_offer_limit", "price_not_available", "offer_in_use", "appstore_connect_conflict", "appstore_connect_refused",
                     "appstore_connect_failed"] {
            #expect(keys.contains(code), "\(code) has no words in problems.js")
            #expect(documented.contains(code), "\(code) is not in openapi.yaml's Problem code enum")
        }
        #expect(keys.isSubset(of: documented), "words for codes the service does not document: \(keys.subtracting(documented).sorted())")
    }
}
