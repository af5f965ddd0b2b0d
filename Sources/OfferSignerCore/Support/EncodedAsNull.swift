/// An optional property written as `null` when it is nil instead of being left out, so that a
/// document always has the same keys (synthesised `Encodable` leaves nil out). Decoding takes
/// a missing key or `null` as nil.
@propertyWrapper
public struct EncodedAsNull<Value> {
    /// The property's value.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue` (what the property is set to).
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension EncodedAsNull: Encodable where Value: Encodable {
    /// Writes the value, nil as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension EncodedAsNull: Decodable where Value: Decodable {
    /// Reads the value, `null` as nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension EncodedAsNull: Equatable where Value: Equatable {}
extension EncodedAsNull: Hashable where Value: Hashable {}
extension EncodedAsNull: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key decodes as nil, as for a plain optional (synthesised decoding asks for
    /// the wrapper with `decode`, which would otherwise refuse a missing key).
    public func decode<Value: Decodable>(_: EncodedAsNull<Value>.Type, forKey key: Key) throws -> EncodedAsNull<Value> {
        EncodedAsNull(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
