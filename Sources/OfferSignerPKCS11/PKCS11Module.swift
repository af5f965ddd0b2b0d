internal import CPKCS11
import Foundation
import OfferSignerCore

/// A PKCS#11 module (a shared library such as SoftHSM's `libsofthsm2.so` or an HSM vendor's),
/// loaded with `dlopen` and initialised once per process with OS locking, so that its
/// functions may be called from any thread. Loaded modules are kept for the life of the
/// process: a reload of the keys file that names the same module uses the same one.
final class PKCS11Module: @unchecked Sendable { // @unchecked: owns a dlopen handle and the module's function table, never changed after load; the module locks for itself (CKF_OS_LOCKING_OK)
    /// The path given in the keys file.
    let path: String
    /// The module's function table (`C_GetFunctionList`).
    let functions: UnsafeMutablePointer<CK_FUNCTION_LIST>
    /// The module's own description and manufacturer (`C_GetInfo`), for `keys check`.
    let libraryDescription: String
    private let handle: UnsafeMutableRawPointer
    /// Serialises re-initialisation after a module reports CKR_CRYPTOKI_NOT_INITIALIZED.
    private let initialising = PlainMutex(())
    /// Calls into the module hold it shared; ``restart()`` holds it alone, since `C_Finalize`
    /// must not run while another thread is inside the module.
    private let calls = ReadWriteLock()
    /// Counts restarts: sessions, logins and handles of an earlier epoch are gone.
    private let restarts = PlainMutex(0)

    private static let loaded = PlainMutex<[String: PKCS11Module]>([:])

    /// The module at `path`, loaded and initialised on first use.
    static func load(path: String) throws(PKCS11Error) -> PKCS11Module {
        let result: Result<PKCS11Module, PKCS11Error> = loaded.withLock { modules in
            if let module = modules[path] { return .success(module) }
            do throws(PKCS11Error) {
                let module = try PKCS11Module(path: path)
                modules[path] = module
                return .success(module)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(path: String) throws(PKCS11Error) {
        self.path = path
        guard !path.contains("/") || FileManager.default.fileExists(atPath: path) else {
            throw .moduleNotLoaded(path: path, reason: "no such file")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw .moduleNotLoaded(path: path, reason: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        var list: CK_FUNCTION_LIST_PTR?
        let value = cpkcs11_get_function_list(dlsym(handle, "C_GetFunctionList"), &list)
        guard value == CKR_OK, let list else {
            dlclose(handle)
            if value == CKR_FUNCTION_NOT_SUPPORTED { throw .notAModule(path: path) }
            throw .call("C_GetFunctionList", returnValue: UInt(value))
        }
        guard Self.providesWhatIsUsed(list.pointee) else {
            dlclose(handle)
            throw .notAModule(path: path)
        }
        self.handle = handle
        functions = list
        var info = CK_INFO()
        do {
            try Self.initialize(list)
            _ = list.pointee.C_GetInfo!(&info)
        } catch {
            dlclose(handle)
            throw error
        }
        libraryDescription = [PKCS11Text.string(info.manufacturerID), PKCS11Text.string(info.libraryDescription)]
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Whether the table has every function this service calls (so calling them through `!` is safe).
    private static func providesWhatIsUsed(_ f: CK_FUNCTION_LIST) -> Bool {
        f.C_Initialize != nil && f.C_GetInfo != nil && f.C_GetSlotList != nil && f.C_GetTokenInfo != nil && f.C_OpenSession != nil
            && f.C_CloseSession != nil && f.C_Login != nil && f.C_FindObjectsInit != nil && f.C_FindObjects != nil
            && f.C_FindObjectsFinal != nil && f.C_GetAttributeValue != nil && f.C_SignInit != nil && f.C_Sign != nil
    }

    /// `C_Initialize` with OS locking; a module already initialised (by another user of it in
    /// this process) is fine.
    private static func initialize(_ list: UnsafeMutablePointer<CK_FUNCTION_LIST>) throws(PKCS11Error) {
        var arguments = CK_C_INITIALIZE_ARGS()
        arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
        let value = withUnsafeMutablePointer(to: &arguments) { list.pointee.C_Initialize!(UnsafeMutableRawPointer($0)) }
        guard value == CKR_OK || value == CKR_CRYPTOKI_ALREADY_INITIALIZED else {
            throw .call("C_Initialize", returnValue: UInt(value))
        }
    }

    /// Runs `body`, which calls into the module, while no ``restart()`` can run.
    func sharing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        calls.lockShared()
        defer { calls.unlock() }
        return try body()
    }

    /// How many times the module was restarted: a connection made in an earlier epoch is gone.
    var epoch: Int { restarts.withLock { $0 } }

    /// `C_Finalize` then `C_Initialize`, once no other thread is inside the module: what makes a
    /// module such as SoftHSM2 scan its tokens again, so that a token taken out and put back is
    /// seen again. Every session and login of every token of the module ends with it. Never
    /// called from inside ``sharing(_:)``.
    func restart() throws(PKCS11Error) {
        calls.lockExclusive()
        defer { calls.unlock() }
        if let finalize = functions.pointee.C_Finalize { _ = finalize(nil) }
        restarts.withLock { $0 += 1 }
        try Self.initialize(functions)
    }

    /// Initialises the module again, after it said it was not (finalised under us).
    func reinitialize() throws(PKCS11Error) {
        let result: Result<Void, PKCS11Error> = initialising.withLock { _ in
            do throws(PKCS11Error) { try Self.initialize(functions) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }
}

/// PKCS#11's fixed-width, space-padded text fields.
enum PKCS11Text {
    /// The text of a blank-padded field (a tuple of bytes), trailing blanks removed.
    static func string<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { bytes in
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.last, last == " " || last == "\0" { text.removeLast() }
            return text
        }
    }
}

/// A POSIX read-write lock (shared for calls into a module, exclusive for restarting it).
private final class ReadWriteLock: @unchecked Sendable { // @unchecked: the pthread lock is the synchronisation
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockShared() { pthread_rwlock_rdlock(lock) }
    func lockExclusive() { pthread_rwlock_wrlock(lock) }
    func unlock() { pthread_rwlock_unlock(lock) }
}
