/// HTTP header fields in order, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [(name: String, key: String, value: String)] = []

    public init() {}

    /// Empty, with room for `capacity` fields.
    init(capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// The first value of `name`, ignoring case.
    public subscript(name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.key == key }?.value
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, name.lowercased(), value))
    }

    /// Replaces every field named `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        fields.removeAll { $0.key == key }
        fields.append((name, key, value))
    }

    /// The fields whose lowercase names are among `keys` (lowercase), in order, repeats kept.
    func fields(named keys: [String]) -> [(name: String, value: String)] {
        fields.compactMap { keys.contains($0.key) ? (name: $0.name, value: $0.value) : nil }
    }

    /// Calls `body` with each field's lowercase name and value, in order, without copying the fields.
    func forEachField(_ body: (_ key: String, _ value: String) -> Void) {
        for field in fields { body(field.key, field.value) }
    }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.lazy.map { (name: $0.name, value: $0.value) }.makeIterator()
    }
}
