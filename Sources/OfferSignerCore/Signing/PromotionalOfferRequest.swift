import Foundation

/// What a promotional-offer signature commits to, in Apple's terms.
public struct PromotionalOfferRequest: Hashable, Sendable {
    public var bundleId: String
    public var keyIdentifier: String
    public var productId: String
    public var offerId: String
    /// The app account token, signed lowercased.
    public var appAccountToken: String
    /// A lowercase UUID that is never issued twice.
    public var nonce: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// The transaction the offer applies to: the one the app sent, or the proven
    /// subscription's original. Signed (as the `transactionId` claim) only in the JWS format;
    /// the legacy payload has no place for it, so there it is only logged.
    public var transactionId: String?

    public init(
        bundleId: String, keyIdentifier: String, productId: String, offerId: String,
        appAccountToken: String, nonce: String, timestamp: Int64, transactionId: String? = nil
    ) {
        self.bundleId = bundleId
        self.keyIdentifier = keyIdentifier
        self.productId = productId
        self.offerId = offerId
        self.appAccountToken = appAccountToken
        self.nonce = nonce
        self.timestamp = timestamp
        self.transactionId = transactionId
    }

    /// U+2063 INVISIBLE SEPARATOR, the separator of Apple's legacy payload.
    public static let separator = "\u{2063}"

    /// The exact bytes of Apple's legacy payload:
    /// `bundleId⁣keyIdentifier⁣productId⁣offerId⁣lowercase(appAccountToken)⁣lowercase(nonce)⁣timestamp`.
    /// Written field by field into one reserved array (issue 38: no joined string copied into
    /// bytes after); an ASCII field lowercased byte by byte, as `lowercased()` maps ASCII.
    public var legacyPayload: [UInt8] {
        let separator: [UInt8] = [0xE2, 0x81, 0xA3]  // U+2063 in UTF-8 (`separator`)
        let timestamp = String(timestamp)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(bundleId.utf8.count + keyIdentifier.utf8.count + productId.utf8.count + offerId.utf8.count
                              + appAccountToken.utf8.count + nonce.utf8.count + timestamp.utf8.count + 6 * separator.count)
        func lowercased(_ text: String) {
            // An ASCII field is copied whole, then A–Z folded in place (what `lowercased()`
            // does to ASCII); any other goes through `lowercased()`.
            let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
                guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
                let start = bytes.count
                bytes.append(contentsOf: utf8)
                bytes.withUnsafeMutableBufferPointer { all in
                    for index in start..<all.count where all[index] >= UInt8(ascii: "A") && all[index] <= UInt8(ascii: "Z") {
                        all[index] |= 0x20
                    }
                }
                return true
            }
            if copied != true { bytes.append(contentsOf: text.lowercased().utf8) }
        }
        bytes.append(contentsOf: bundleId.utf8)
        bytes.append(contentsOf: separator)
        bytes.append(contentsOf: keyIdentifier.utf8)
        bytes.append(contentsOf: separator)
        bytes.append(contentsOf: productId.utf8)
        bytes.append(contentsOf: separator)
        bytes.append(contentsOf: offerId.utf8)
        bytes.append(contentsOf: separator)
        lowercased(appAccountToken)
        bytes.append(contentsOf: separator)
        lowercased(nonce)
        bytes.append(contentsOf: separator)
        bytes.append(contentsOf: timestamp.utf8)
        return bytes
    }
}
