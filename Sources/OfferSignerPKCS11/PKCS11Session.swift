internal import CPKCS11

/// One open session of a token, and the few calls the service makes in it: find objects,
/// read attributes, sign, generate a key pair. A value: the token owns the session's life.
struct PKCS11Session {
    let functions: UnsafeMutablePointer<CK_FUNCTION_LIST>
    let handle: CK_SESSION_HANDLE

    /// An attribute for a search or a template: its type and its value's bytes.
    struct Attribute {
        let type: CK_ATTRIBUTE_TYPE
        let value: [UInt8]

        init(_ type: UInt, _ value: [UInt8]) {
            self.type = CK_ATTRIBUTE_TYPE(type)
            self.value = value
        }

        /// A CK_ULONG-valued attribute (a class, a key type).
        static func number(_ type: UInt, _ value: UInt) -> Attribute {
            Attribute(type, withUnsafeBytes(of: CK_ULONG(value)) { Array($0) })
        }

        /// A CK_BBOOL-valued attribute.
        static func flag(_ type: UInt, _ value: Bool) -> Attribute {
            Attribute(type, [value ? 1 : 0])
        }
    }

    /// The DER of the P-256 curve's OID (1.2.840.10045.3.1.7), as CKA_EC_PARAMS holds it.
    static let p256Parameters: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]

    /// Up to `limit` objects matching every attribute of `template`.
    func findObjects(_ template: [Attribute], limit: Int = 4) throws(PKCS11Error) -> [CK_OBJECT_HANDLE] {
        let started = Self.withTemplate(template) { attributes, count in functions.pointee.C_FindObjectsInit!(handle, attributes, count) }
        guard started == CKR_OK else { throw .call("C_FindObjectsInit", returnValue: UInt(started)) }
        defer { _ = functions.pointee.C_FindObjectsFinal!(handle) }
        var found = [CK_OBJECT_HANDLE](repeating: 0, count: limit)
        var count: CK_ULONG = 0
        let value = functions.pointee.C_FindObjects!(handle, &found, CK_ULONG(limit), &count)
        guard value == CKR_OK else { throw .call("C_FindObjects", returnValue: UInt(value)) }
        return Array(found.prefix(Int(count)))
    }

    /// The value of attribute `type` of `object`; nil when the object has none or keeps it secret.
    func attribute(_ type: UInt, of object: CK_OBJECT_HANDLE) throws(PKCS11Error) -> [UInt8]? {
        var query = CK_ATTRIBUTE(type: CK_ATTRIBUTE_TYPE(type), pValue: nil, ulValueLen: 0)
        var value = functions.pointee.C_GetAttributeValue!(handle, object, &query, 1)
        if value == CKR_ATTRIBUTE_TYPE_INVALID || value == CKR_ATTRIBUTE_SENSITIVE { return nil }
        guard value == CKR_OK else { throw .call("C_GetAttributeValue", returnValue: UInt(value)) }
        guard query.ulValueLen != CK_ULONG.max else { return nil }  // CK_UNAVAILABLE_INFORMATION
        var bytes = [UInt8](repeating: 0, count: Int(query.ulValueLen))
        value = bytes.withUnsafeMutableBytes { buffer in
            query.pValue = buffer.baseAddress
            return functions.pointee.C_GetAttributeValue!(handle, object, &query, 1)
        }
        guard value == CKR_OK else { throw .call("C_GetAttributeValue", returnValue: UInt(value)) }
        return Array(bytes.prefix(Int(query.ulValueLen)))
    }

    /// The ECDSA signature (R‖S, 64 bytes for P-256) of a SHA-256 `digest` with `key` (CKM_ECDSA).
    func signECDSA(digest: [UInt8], with key: CK_OBJECT_HANDLE) throws(PKCS11Error) -> [UInt8] {
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0)
        let started = functions.pointee.C_SignInit!(handle, &mechanism, key)
        guard started == CKR_OK else { throw .call("C_SignInit", returnValue: UInt(started)) }
        var signature = [UInt8](repeating: 0, count: 132)
        var length = CK_ULONG(signature.count)
        var input = digest
        let value = functions.pointee.C_Sign!(handle, &input, CK_ULONG(input.count), &signature, &length)
        guard value == CKR_OK else { throw .call("C_Sign", returnValue: UInt(value)) }
        guard length == 64 else { throw .call("C_Sign (a P-256 signature is 64 bytes, the module gave \(length))", returnValue: UInt(CKR_GENERAL_ERROR)) }
        return Array(signature.prefix(64))
    }

    /// Generates an EC P-256 key pair on the token (CKM_EC_KEY_PAIR_GEN): the private key
    /// sensitive and never extractable, both labelled `label` with CKA_ID `id`. Needs a
    /// read-write session of a logged-in user.
    func generateP256KeyPair(label: String, id: [UInt8]) throws(PKCS11Error) {
        guard let generate = functions.pointee.C_GenerateKeyPair else {
            throw .call("C_GenerateKeyPair", returnValue: UInt(CKR_FUNCTION_NOT_SUPPORTED))
        }
        let common = [Attribute(UInt(CKA_LABEL), Array(label.utf8)), Attribute(UInt(CKA_ID), id), .flag(UInt(CKA_TOKEN), true)]
        let publicTemplate = common + [Attribute(UInt(CKA_EC_PARAMS), Self.p256Parameters), .flag(UInt(CKA_VERIFY), true)]
        let privateTemplate = common + [
            .flag(UInt(CKA_PRIVATE), true), .flag(UInt(CKA_SENSITIVE), true), .flag(UInt(CKA_EXTRACTABLE), false), .flag(UInt(CKA_SIGN), true),
        ]
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_EC_KEY_PAIR_GEN), pParameter: nil, ulParameterLen: 0)
        var publicKey: CK_OBJECT_HANDLE = 0, privateKey: CK_OBJECT_HANDLE = 0
        let value = Self.withTemplate(publicTemplate) { publicAttributes, publicCount in
            Self.withTemplate(privateTemplate) { privateAttributes, privateCount in
                generate(handle, &mechanism, publicAttributes, publicCount, privateAttributes, privateCount, &publicKey, &privateKey)
            }
        }
        guard value == CKR_OK else { throw .call("C_GenerateKeyPair", returnValue: UInt(value)) }
    }

    /// `template` as a C array of CK_ATTRIBUTE whose values stay valid during `body`.
    static func withTemplate<Result>(_ template: [Attribute],
                                     _ body: (UnsafeMutablePointer<CK_ATTRIBUTE>, CK_ULONG) -> Result) -> Result {
        let values = template.map { attribute -> UnsafeMutableRawPointer in
            let memory = UnsafeMutableRawPointer.allocate(byteCount: max(1, attribute.value.count), alignment: 8)
            attribute.value.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { memory.copyMemory(from: base, byteCount: bytes.count) }
            }
            return memory
        }
        defer { values.forEach { $0.deallocate() } }
        var attributes = zip(template, values).map { attribute, memory in
            CK_ATTRIBUTE(type: attribute.type, pValue: memory, ulValueLen: CK_ULONG(attribute.value.count))
        }
        return attributes.withUnsafeMutableBufferPointer { body($0.baseAddress!, CK_ULONG($0.count)) }
    }
}
