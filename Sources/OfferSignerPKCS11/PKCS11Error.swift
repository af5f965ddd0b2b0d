/// Why a key in a PKCS#11 module could not be used. The descriptions are the messages an
/// operator reads; none carries the PIN.
public enum PKCS11Error: Error, Equatable, CustomStringConvertible, Sendable {
    /// The module file could not be loaded (`dlopen`'s reason).
    case moduleNotLoaded(path: String, reason: String)
    /// The file loaded but has no `C_GetFunctionList`.
    case notAModule(path: String)
    /// A PKCS#11 call failed: its name and the module's return value.
    case call(String, returnValue: UInt)
    case invalidURI(uri: String, reason: String)
    /// `pinEnv` names a variable that is not set.
    case pinNotSet(variable: String)
    /// The token refused the PIN read from `variable`.
    case pinIncorrect(variable: String)
    case pinLocked
    /// Another key of the same token came with another PIN (read from `variable`), which the
    /// token, logged in already, cannot check: a token has one user PIN, so this one is wrong.
    case pinDiffers(variable: String, token: String)
    /// No present token matches the URI; `present` lists the labels of those there are.
    case tokenNotFound(uri: String, present: [String])
    case severalTokens(uri: String, labels: [String])
    case objectNotFound(uri: String)
    case severalObjects(uri: String, count: Int)
    /// The object is not an EC key on P-256.
    case notP256(uri: String)
    /// Neither a public-key object beside the key nor the key's own attributes give its public key.
    case noPublicKey(uri: String)
    /// A test signature made with the key does not verify under the public key found for it.
    case publicKeyMismatch(uri: String)
    /// Every session of the token was busy for this long.
    case sessionsBusy(seconds: Int)

    public var description: String {
        switch self {
        case .moduleNotLoaded(let path, let reason): "cannot load the PKCS#11 module \(path) (\(reason))"
        case .notAModule(let path): "\(path) is not a PKCS#11 module (it has no C_GetFunctionList)"
        case .call(let function, let value): "\(function) failed: \(Self.name(of: value))"
        case .invalidURI(let uri, let reason): "'\(uri)' is not a usable pkcs11: URI: \(reason)"
        case .pinNotSet(let variable) where variable.isEmpty: "the token needs a PIN: name the environment variable holding it in pinEnv"
        case .pinNotSet(let variable): "the PIN's environment variable \(variable) (pinEnv) is not set"
        case .pinIncorrect(let variable): "the token refused the PIN in \(variable) (CKR_PIN_INCORRECT)"
        case .pinLocked: "the token's user PIN is locked (CKR_PIN_LOCKED): its security officer must unlock it"
        case .pinDiffers(let variable, let token):
            "the PIN in \(variable) is not the one token '\(token)' was logged in with for another of its keys "
                + "(a token has one user PIN: give every key of the token the same pinEnv, holding the right PIN)"
        case .tokenNotFound(let uri, let present):
            "no token present matches \(uri)" + (present.isEmpty ? " (the module has no token present)"
                                                 : " (tokens present: \(present.map { "'\($0)'" }.joined(separator: ", ")))")
        case .severalTokens(let uri, let labels):
            "several tokens match \(uri) (\(labels.map { "'\($0)'" }.joined(separator: ", "))): name one with token= or serial="
        case .objectNotFound(let uri): "the token has no private key matching \(uri)"
        case .severalObjects(let uri, let count): "\(count) private keys match \(uri): name one with object= and id="
        case .notP256(let uri): "the key \(uri) is not an EC P-256 (prime256v1) key"
        case .noPublicKey(let uri):
            "no public key found for \(uri): neither a public-key object with the same CKA_ID or label nor the key's CKA_PUBLIC_KEY_INFO"
        case .publicKeyMismatch(let uri): "a test signature by \(uri) does not verify under the public key the token gives for it"
        case .sessionsBusy(let seconds): "every session of the token was busy for \(seconds) s"
        }
    }

    /// Whether the token may be gone, or the sessions and the login with it: opening new
    /// sessions and logging in again may succeed (a token removed and put back, a restarted HSM).
    var tokenMayBeBack: Bool {
        guard case .call(_, let value) = self else { return false }
        return Self.sessionLost.contains(value)
    }

    /// Whether the token itself may have left the module (removed, not recognised): a module
    /// such as SoftHSM2 sees it again only once restarted (`C_Finalize`, `C_Initialize`).
    var tokenGone: Bool {
        switch self {
        case .tokenNotFound: true
        case .call(_, let value): Self.tokenGoneCodes.contains(value)
        default: false
        }
    }

    /// CKR_SLOT_ID_INVALID, CKR_DEVICE_REMOVED, CKR_TOKEN_NOT_PRESENT, CKR_TOKEN_NOT_RECOGNIZED.
    static let tokenGoneCodes: Set<UInt> = [0x03, 0x32, 0xe0, 0xe1]

    /// CKR_ codes after which the session (or the whole connection to the token) is gone.
    static let sessionLost: Set<UInt> = [
        0x03 /* SLOT_ID_INVALID */, 0x05 /* GENERAL_ERROR */, 0x30 /* DEVICE_ERROR */, 0x31 /* DEVICE_MEMORY */,
        0x32 /* DEVICE_REMOVED */, 0x60 /* KEY_HANDLE_INVALID */, 0x82 /* OBJECT_HANDLE_INVALID */,
        0xb0 /* SESSION_CLOSED */, 0xb3 /* SESSION_HANDLE_INVALID */, 0xe0 /* TOKEN_NOT_PRESENT */,
        0xe1 /* TOKEN_NOT_RECOGNIZED */, 0x101 /* USER_NOT_LOGGED_IN */, 0x190 /* CRYPTOKI_NOT_INITIALIZED */,
    ]

    /// The CKR_ name of `value` (its hex for one not listed).
    static func name(of value: UInt) -> String {
        names[value] ?? "CKR 0x\(String(value, radix: 16))"
    }

    private static let names: [UInt: String] = [
        0x00: "CKR_OK", 0x01: "CKR_CANCEL", 0x02: "CKR_HOST_MEMORY", 0x03: "CKR_SLOT_ID_INVALID", 0x05: "CKR_GENERAL_ERROR",
        0x06: "CKR_FUNCTION_FAILED", 0x07: "CKR_ARGUMENTS_BAD", 0x12: "CKR_ATTRIBUTE_TYPE_INVALID", 0x11: "CKR_ATTRIBUTE_SENSITIVE",
        0x30: "CKR_DEVICE_ERROR", 0x31: "CKR_DEVICE_MEMORY", 0x32: "CKR_DEVICE_REMOVED", 0x50: "CKR_FUNCTION_CANCELED",
        0x54: "CKR_FUNCTION_NOT_SUPPORTED", 0x60: "CKR_KEY_HANDLE_INVALID", 0x63: "CKR_KEY_TYPE_INCONSISTENT",
        0x68: "CKR_KEY_FUNCTION_NOT_PERMITTED", 0x70: "CKR_MECHANISM_INVALID", 0x82: "CKR_OBJECT_HANDLE_INVALID",
        0x90: "CKR_OPERATION_ACTIVE", 0x91: "CKR_OPERATION_NOT_INITIALIZED", 0xa0: "CKR_PIN_INCORRECT", 0xa1: "CKR_PIN_INVALID",
        0xa2: "CKR_PIN_LEN_RANGE", 0xa3: "CKR_PIN_EXPIRED", 0xa4: "CKR_PIN_LOCKED", 0xb0: "CKR_SESSION_CLOSED",
        0xb1: "CKR_SESSION_COUNT", 0xb3: "CKR_SESSION_HANDLE_INVALID", 0xb5: "CKR_SESSION_READ_ONLY",
        0xe0: "CKR_TOKEN_NOT_PRESENT", 0xe1: "CKR_TOKEN_NOT_RECOGNIZED", 0x100: "CKR_USER_ALREADY_LOGGED_IN",
        0x101: "CKR_USER_NOT_LOGGED_IN", 0x102: "CKR_USER_PIN_NOT_INITIALIZED", 0x104: "CKR_USER_ANOTHER_ALREADY_LOGGED_IN",
        0x150: "CKR_BUFFER_TOO_SMALL", 0x190: "CKR_CRYPTOKI_NOT_INITIALIZED", 0x191: "CKR_CRYPTOKI_ALREADY_INITIALIZED",
        0x1c2: "CKR_LIBRARY_LOAD_FAILED",
    ]
}
