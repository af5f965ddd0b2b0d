@testable import OfferSignerCore
import Testing

@Suite("Listening addresses")
struct ListenAddressTests {
    @Test("HOST:PORT parsing")
    func listen() {
        #expect(ListenAddress("127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress("[::1]:9000") == ListenAddress(host: "::1", port: 9000))
        #expect(ListenAddress("0.0.0.0:70000") == nil)
        #expect(ListenAddress("localhost") == nil)
    }
}
