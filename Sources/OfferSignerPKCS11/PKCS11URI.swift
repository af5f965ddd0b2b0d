import Foundation
import OfferSignerCore

/// An RFC 7512 `pkcs11:` URI naming a private key in a token: `pkcs11:token=Offers;object=iap-key`,
/// or `pkcs11:token=Offers;id=%01%02`. Attribute values are percent-decoded. The PIN never
/// goes in the URI (`pin-value` and `pin-source` are refused: the keys file's `pinEnv` names
/// where it comes from), nor does the module (`pkcs11Module`).
public struct PKCS11URI: Sendable, Hashable, CustomStringConvertible {
    /// The token's label (`token`), manufacturer, serial number and model; nil matches any.
    public var token: String?
    public var manufacturer: String?
    public var serial: String?
    public var model: String?
    /// The slot's number (`slot-id`); nil matches any.
    public var slotId: UInt?
    /// The key object's label (`object`, CKA_LABEL) and identifier (`id`, CKA_ID, raw bytes).
    public var object: String?
    public var id: [UInt8]?
    /// The URI as written.
    public let text: String

    public var description: String { text }

    /// Parses `text`; throws naming the fault.
    public init(_ text: String) throws(PKCS11Error) {
        self.text = text
        // A refused URI may hold a PIN, in its query or (wrongly) in its path: messages show it
        // without the query and with every pin-value and pin-source value redacted.
        let shown = Self.redacted(text.contains("?") ? String(text.prefix { $0 != "?" }) + "?…" : text)
        func invalid(_ reason: String) -> PKCS11Error { .invalidURI(uri: shown, reason: reason) }
        guard text.hasPrefix("pkcs11:") else { throw invalid("it does not start with 'pkcs11:'") }
        let rest = text.dropFirst("pkcs11:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, !parts[1].isEmpty {
            let names = parts[1].split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
            if names.contains(where: { $0 == "pin-value" || $0 == "pin-source" }) {
                throw invalid("the PIN never goes in the keys file: name an environment variable holding it in \"pinEnv\"")
            }
            throw invalid("query attributes (\(names.joined(separator: ", "))) are not used: the module is \"pkcs11Module\", the PIN's variable \"pinEnv\"")
        }
        var seen = Set<String>()
        for attribute in parts[0].split(separator: ";", omittingEmptySubsequences: true) {
            let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { throw invalid("'\(attribute)' is not name=value") }
            let name = String(pair[0])
            if Self.pinAttributes.contains(name.lowercased()) {
                throw invalid("the PIN never goes in the keys file: name an environment variable holding it in \"pinEnv\"")
            }
            guard seen.insert(name).inserted else { throw invalid("'\(name)' is given twice") }
            guard let bytes = Self.percentDecoded(pair[1]) else { throw invalid("the value of '\(name)' is not percent-encoded correctly") }
            let value = String(decoding: bytes, as: UTF8.self)
            switch name {
            case "token": token = value
            case "manufacturer": manufacturer = value
            case "serial": serial = value
            case "model": model = value
            case "object": object = value
            case "id":
                guard !bytes.isEmpty else { throw invalid("'id' is empty") }
                id = bytes
            case "slot-id":
                guard let number = UInt(value) else { throw invalid("'slot-id' is not a number") }
                slotId = number
            case "type":
                guard value == "private" else { throw invalid("type '\(value)': the signing key is a private key (type=private)") }
            case "library-manufacturer", "library-description", "library-version", "slot-description", "slot-manufacturer":
                continue  // describe the module or slot, which pkcs11Module and the token attributes already choose
            default:
                throw invalid("unknown attribute '\(name)'")
            }
        }
        guard object != nil || id != nil else { throw invalid("it names no key: give 'object' (the key's label) or 'id'") }
    }

    /// The attributes that carry a PIN or say where to read one (RFC 7512 puts them in the query).
    static let pinAttributes: Set<String> = ["pin-value", "pin-source"]

    /// `text` with the value of every `pin-value` and `pin-source` attribute (in the path or the
    /// query, in any case, percent-encoded or not) replaced by `…`: what a message may show of a
    /// URI that was refused, or of any text that may be one.
    public static func redacted(_ text: String) -> String {
        var out = ""
        var component = ""
        func flush() {
            out += redactedComponent(component)
            component = ""
        }
        for character in text {
            if character == ";" || character == "?" || character == "&" {
                flush()
                out.append(character)
            } else {
                component.append(character)
            }
        }
        flush()
        return out
    }

    /// `name=value` with the value redacted when the name is a PIN attribute.
    private static func redactedComponent(_ component: String) -> String {
        guard let equals = component.firstIndex(of: "=") else { return component }
        var name = component[..<equals]
        if let scheme = name.range(of: ":") { name = name[scheme.upperBound...] }  // "pkcs11:pin-value=…"
        let decoded = percentDecoded(name).map { String(decoding: $0, as: UTF8.self) } ?? String(name)
        guard pinAttributes.contains(decoded.trimmingCharacters(in: .whitespaces).lowercased()) else { return component }
        return String(component[...equals]) + "…"
    }

    /// The bytes of a percent-encoded value; nil for a `%` not followed by two hex digits.
    static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            out.append(value)
            bytes = bytes.dropFirst(2)
        }
        return out
    }

    /// `object=…`, `id=…` (hex): the key as the messages name it.
    var objectDescription: String {
        [object.map { "object '\($0)'" }, id.map { "id \($0.hexString)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
