/// Where a key in a hardware module is, as the keys file says: the module's path, the key's
/// `pkcs11:` URI, and the environment variable holding the token's PIN (never the PIN).
public struct PKCS11KeyReference: Sendable, Hashable {
    public var module: String
    public var uri: PKCS11URI
    /// The name of the environment variable holding the user PIN; nil for a token that needs no login.
    public var pinVariable: String?

    public init(module: String, uri: PKCS11URI, pinVariable: String?) {
        self.module = module
        self.uri = uri
        self.pinVariable = pinVariable
    }
}
