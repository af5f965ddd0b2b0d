import Foundation
import OfferSignerCore
import Testing

/// StoreKit's device verification as Apple documents it for `Transaction.deviceVerification`:
/// SHA-384 of the lowercased nonce, then the lowercased `AppStore.deviceVerificationID`.
@Suite("Device verification")
struct DeviceVerificationTests {
    static let nonce = "48CCFA42-7431-4F22-9908-7E88983E105A"
    static let device = "6A1C0E2B-4D3F-4B5A-9C8D-7E6F5A4B3C2D"
    /// base64(SHA-384("48ccfa42-…105a" + "6a1c0e2b-…3c2d")), computed with Python's hashlib.
    static let expected = "QVQkuNGBiS5k+bxHy8Nqf7V7t+Q113LhUYg+11Vyys8adt8NxubRz+V+i18ZDTV7"
    /// The same hash with the two in the other order, which must not match.
    static let reversed = "3w+NAk5g3vfXjWibgiLZFu7IIqW6AUNuhUcQd9P6Uv/RDKD0F2aNMn1B1gs6ifzX"

    @Test("nonce then device ID, lowercased, whatever case they are sent in")
    func matches() {
        #expect(DeviceVerification.matches(deviceVerification: Self.expected, nonce: Self.nonce, deviceVerificationId: Self.device))
        #expect(DeviceVerification.matches(deviceVerification: Self.expected, nonce: Self.nonce.lowercased(),
                                           deviceVerificationId: Self.device.lowercased()))
        #expect(Data(DeviceVerification.value(nonce: UUID(uuidString: Self.nonce)!, deviceVerificationId: UUID(uuidString: Self.device)!))
                    .base64EncodedString() == Self.expected)
    }

    @Test("another device, the reversed order, or anything malformed does not match")
    func refuses() {
        #expect(!DeviceVerification.matches(deviceVerification: Self.reversed, nonce: Self.nonce, deviceVerificationId: Self.device))
        #expect(!DeviceVerification.matches(deviceVerification: Self.expected, nonce: Self.nonce,
                                            deviceVerificationId: "6a1c0e2b-4d3f-4b5a-9c8d-7e6f5a4b3c2e"))
        #expect(!DeviceVerification.matches(deviceVerification: Self.expected, nonce: "not-a-uuid", deviceVerificationId: Self.device))
        #expect(!DeviceVerification.matches(deviceVerification: "dGVzdA==", nonce: Self.nonce, deviceVerificationId: Self.device))
        #expect(!DeviceVerification.matches(deviceVerification: "%%%", nonce: Self.nonce, deviceVerificationId: Self.device))
    }
}
