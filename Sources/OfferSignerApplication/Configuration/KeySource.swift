import Foundation
import OfferSignerCore
import OfferSignerPKCS11

/// Where a configured key is held: a PKCS#8 file read into memory, or a PKCS#11 token that
/// never lets it out.
public enum KeySource: Sendable, Equatable {
    case file(path: String)
    /// The module's path and own description, the token's label, the key's URI.
    case pkcs11(module: String, library: String, token: String, uri: String)

    /// `file …` or `PKCS#11 …`, as `keys check` prints it.
    public var summary: String {
        switch self {
        case .file(let path): "file \(path)"
        case .pkcs11(let module, let library, let token, let uri):
            "PKCS#11 \(uri) in token '\(token)' of module \(module)\(library.isEmpty ? "" : " (\(library))")"
        }
    }
}

/// A key's place as a keys file entry gives it: exactly one of a file and a `pkcs11:` URI.
struct KeyLocationEntry {
    var privateKeyPath: String?
    var pkcs11: String?
    var pkcs11Module: String?
    var pinEnv: String?

    /// A key opened: the signing key, where it is, and what an operator should know about it.
    struct Opened {
        let key: any P256SigningKey
        let source: KeySource
        let warnings: [String]
    }

    /// Why it could not be opened.
    enum Failure: Error {
        /// The entry does not say where the key is, or says it twice.
        case location(String)
        case unreadable(path: String, reason: String)
        case invalid(path: String, KeyError)
        case pkcs11(PKCS11Error)
    }

    /// Opens the key, relative paths resolving against `folder`.
    func open(folder: URL, environment: [String: String]) -> Result<Opened, Failure> {
        switch (privateKeyPath, pkcs11) {
        case (let path?, nil):
            guard pkcs11Module == nil, pinEnv == nil else {
                return .failure(.location("pkcs11Module and pinEnv go with pkcs11, not with privateKeyPath"))
            }
            let url = Self.resolve(path, in: folder)
            switch KeyConfiguration.privateKey(at: url) {
            case .success(let key):
                return .success(Opened(key: key, source: .file(path: url.path),
                                       warnings: FilePermissions.warning(for: url.path).map { [$0] } ?? []))
            case .failure(.unreadable(let reason)): return .failure(.unreadable(path: url.path, reason: reason))
            case .failure(.invalid(let error)): return .failure(.invalid(path: url.path, error))
            }
        case (nil, let text?):
            guard let module = pkcs11Module, !module.isEmpty else {
                return .failure(.location("a pkcs11 key needs pkcs11Module, the path of the module's shared library"))
            }
            if let pinEnv, pinEnv.isEmpty || pinEnv.contains("=") {
                return .failure(.location("pinEnv must name an environment variable (the PIN itself never goes in the keys file)"))
            }
            // A bare file name is left to the dynamic loader's search; any other path resolves like a key file's.
            let modulePath = module.contains("/") ? Self.resolve(module, in: folder).path : module
            do throws(PKCS11Error) {
                let reference = PKCS11KeyReference(module: modulePath, uri: try PKCS11URI(text), pinVariable: pinEnv)
                let key = try PKCS11PrivateKey.open(reference, environment: environment)
                return .success(Opened(key: key, source: .pkcs11(module: modulePath, library: key.moduleDescription,
                                                                 token: key.tokenLabel, uri: text), warnings: key.warnings))
            } catch {
                return .failure(.pkcs11(error))
            }
        case (nil, nil): return .failure(.location("it names no key: give privateKeyPath (a .p8 file) or pkcs11 (a key in a hardware module)"))
        case (_?, _?): return .failure(.location("give privateKeyPath or pkcs11, not both"))
        }
    }

    static func resolve(_ path: String, in folder: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
    }
}
