import Foundation

/// Decodes JSON objects strictly: a key that the type's decoding never reads is refused with
/// `DecodingError.dataCorrupted` naming it ("unknown field 'x'"), at any depth. It wraps the
/// decoder a `JSONDecoder` hands out, so a type keeps its synthesized `init(from:)` and the
/// decoder's date strategy still applies.
///
/// Used where JSON comes from people (request bodies, the keys file, offer rule files) through
/// `JSONDecoder.decodeStrictly`; never for Apple's payloads, which gain fields over time.
public struct StrictDecoder: Decoder {
    let base: any Decoder
    let reads: KeyReads

    /// Decodes `type` from `decoder`, then refuses any key of any object it read that the
    /// decoding did not ask for.
    public static func decode<T: Decodable>(_ type: T.Type, from decoder: any Decoder) throws -> T {
        let strict = StrictDecoder(base: decoder, reads: KeyReads())
        let value = try T(from: strict)
        try strict.reads.refuseUnread()
        return value
    }

    public var codingPath: [any CodingKey] { base.codingPath }
    public var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        let present = try base.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        return KeyedDecodingContainer(StrictKeyedContainer(base: container, object: reads.object(at: codingPath, keys: present)))
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.unkeyedContainer())
    }

    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }

    /// Whether `type` is decoded by the JSON decoder itself (with its strategies), not by
    /// decoding its parts: the values of the wrapped containers are forwarded as they are.
    static func isLeaf(_ type: Any.Type) -> Bool {
        type == String.self || type == Bool.self || type == Int.self || type == Int64.self || type == Double.self
            || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self || type == Int32.self
            || type == UInt64.self || type == Float.self
    }
}

extension JSONDecoder {
    /// Decodes `type`, refusing a key that its decoding does not read, at any depth, and a key
    /// that appears twice in one object; a number that does not fit its field is refused
    /// naming the field.
    public func decodeStrictly<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value: T
        do {
            value = try decode(StrictBox<T>.self, from: data).value
        } catch {
            throw JSONNumberFault.named(error, in: data) { _ = try decode(StrictBox<T>.self, from: $0) }
        }
        try JSONDuplicateKeys.refuse(in: data)
        return value
    }
}

/// Carries a strictly decoded value through `JSONDecoder.decode`.
struct StrictBox<T: Decodable>: Decodable {
    let value: T

    init(from decoder: any Decoder) throws {
        value = try StrictDecoder.decode(T.self, from: decoder)
    }
}

/// The keys present in each object a strict decoding opened, and those it read.
final class KeyReads {
    private var objects: [(path: [any CodingKey], present: [String], read: Set<String>)] = []

    /// The index of the object at `path` (opened again: the same entry).
    func object(at path: [any CodingKey], keys: [String]) -> ObjectReads {
        let text = path.map(\.stringValue)
        if let index = objects.firstIndex(where: { $0.path.map(\.stringValue) == text }) {
            return ObjectReads(reads: self, index: index)
        }
        objects.append((path, keys, []))
        return ObjectReads(reads: self, index: objects.count - 1)
    }

    func markRead(_ key: String, object index: Int) {
        objects[index].read.insert(key)
    }

    /// Throws for the first key present but never read, in the order of the objects opened.
    func refuseUnread() throws {
        for object in objects {
            if let unknown = object.present.filter({ !object.read.contains($0) }).sorted().first {
                throw DecodingError.dataCorrupted(.init(codingPath: object.path + [AnyCodingKey(stringValue: unknown)],
                                                        debugDescription: "unknown field '\(unknown)'"))
            }
        }
    }
}

/// One object's entry in `KeyReads`.
struct ObjectReads {
    let reads: KeyReads
    let index: Int

    func read(_ key: some CodingKey) { reads.markRead(key.stringValue, object: index) }
}

/// A keyed container that notes every key read and decodes nested values strictly.
struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let object: ObjectReads

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool { base.contains(key) }

    func decodeNil(forKey key: Key) throws -> Bool {
        object.read(key)
        return try base.decodeNil(forKey: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        object.read(key)
        if StrictDecoder.isLeaf(type) { return try base.decode(type, forKey: key) }
        return try StrictDecoder.decode(type, from: base.superDecoder(forKey: key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        object.read(key)
        guard base.contains(key), try !base.decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        object.read(key)
        return try StrictDecoder(base: base.superDecoder(forKey: key), reads: object.reads).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        object.read(key)
        return StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key))
    }

    func superDecoder() throws -> any Decoder { try base.superDecoder() }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        object.read(key)
        return try base.superDecoder(forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    /// A primitive, read straight from the base container.
    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        object.read(key)
        return try base.decode(type, forKey: key)
    }
}

/// An unkeyed container whose elements are decoded strictly.
struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if StrictDecoder.isLeaf(type) { return try base.decode(type) }
        return try StrictDecoder.decode(type, from: base.superDecoder())
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try base.nestedContainer(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        StrictUnkeyedContainer(base: try base.nestedUnkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder { try base.superDecoder() }
}
