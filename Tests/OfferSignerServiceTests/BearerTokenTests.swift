@testable import OfferSignerService
import Testing

@Suite("The Authorization header's bearer token")
struct BearerTokenTests {
    /// How the header was read before issue 38: split once on a space, the scheme lowercased.
    static func splitReading(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    @Test("issue 38: read on the bytes, it takes the token the split reading took, and refuses what it refused",
          arguments: ["Bearer abc", "bearer abc", "BEARER abc", "BeArEr a b c", "Bearer  two-spaces", "  Bearer lead", "Bearer ",
                      "Bearer", "Basic abc", "Bearerabc", "Bear abc", "Bearers abc", "", "   ", " Bearer", "Bearer\tabc",
                      "Bearer abc ", "Bearer é", "Bȩarer abc", "Bearer dev_client_0123456789abcdef"])
    func sameAsSplit(_ header: String) {
        #expect(CallerIdentificationMiddleware.bearerToken(header).map { String(Substring($0)) } == Self.splitReading(header))
    }
}
