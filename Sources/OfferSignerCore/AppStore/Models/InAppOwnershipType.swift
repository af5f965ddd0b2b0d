/// Whether the user purchased the item or has it through Family Sharing.
///
/// [inAppOwnershipType](https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype)
public enum InAppOwnershipType: String, Codable, Hashable, Sendable, CaseIterable {
    case familyShared = "FAMILY_SHARED"
    case purchased = "PURCHASED"
}
