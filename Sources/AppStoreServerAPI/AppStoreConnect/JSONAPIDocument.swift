import Foundation
import OfferSignerCore

/// A JSON:API document as the App Store Connect API sends it: `data` (one resource or a list),
/// `included` resources, and `links.next` when a listing has another page.
public struct JSONAPIDocument: Decodable, Sendable {
    /// The primary resources (one for a single-resource answer).
    public var data: [JSONAPIResource]
    /// Related resources the request asked for with `include`.
    public var included: [JSONAPIResource]
    /// The next page's URL, exactly as Apple gave it; nil on the last page.
    public var next: String?

    enum CodingKeys: String, CodingKey { case data, included, links }
    enum LinkKeys: String, CodingKey { case next }

    public init(data: [JSONAPIResource], included: [JSONAPIResource] = [], next: String? = nil) {
        self.data = data
        self.included = included
        self.next = next
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let list = try? container.decode([JSONAPIResource].self, forKey: .data) {
            data = list
        } else if container.contains(.data), try container.decodeNil(forKey: .data) {
            data = []
        } else {
            data = [try container.decode(JSONAPIResource.self, forKey: .data)]
        }
        included = try container.decodeIfPresent([JSONAPIResource].self, forKey: .included) ?? []
        if container.contains(.links) {
            let links = try container.nestedContainer(keyedBy: LinkKeys.self, forKey: .links)
            next = try links.decodeIfPresent(String.self, forKey: .next)
        }
    }

    /// The included resource of `identifier`.
    public func included(_ identifier: JSONAPIIdentifier?) -> JSONAPIResource? {
        guard let identifier else { return nil }
        return included.first { $0.type == identifier.type && $0.id == identifier.id }
    }
}

/// A resource's type and ID: what a relationship points at.
public struct JSONAPIIdentifier: Codable, Hashable, Sendable {
    public var type: String
    public var id: String

    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }
}

/// One JSON:API resource: type, ID, attributes and the identifiers its relationships hold.
public struct JSONAPIResource: Decodable, Sendable {
    public var type: String
    public var id: String
    public var attributes: [String: JSONValue]
    /// Each relationship's `data`: one identifier, several, or none (a relationship given only as links).
    public var relationships: [String: [JSONAPIIdentifier]]

    public init(type: String, id: String, attributes: [String: JSONValue] = [:], relationships: [String: [JSONAPIIdentifier]] = [:]) {
        self.type = type
        self.id = id
        self.attributes = attributes
        self.relationships = relationships
    }

    enum CodingKeys: String, CodingKey { case type, id, attributes, relationships }
    enum RelationshipKeys: String, CodingKey { case data }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        id = try container.decode(String.self, forKey: .id)
        attributes = try container.decodeIfPresent([String: JSONValue].self, forKey: .attributes) ?? [:]
        var relationships: [String: [JSONAPIIdentifier]] = [:]
        if container.contains(.relationships), !(try container.decodeNil(forKey: .relationships)) {
            let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .relationships)
            for key in nested.allKeys {
                let relationship = try nested.nestedContainer(keyedBy: RelationshipKeys.self, forKey: key)
                if let many = try? relationship.decode([JSONAPIIdentifier].self, forKey: .data) {
                    relationships[key.stringValue] = many
                } else if let one = try? relationship.decode(JSONAPIIdentifier.self, forKey: .data) {
                    relationships[key.stringValue] = [one]
                }
            }
        }
        self.relationships = relationships
    }

    /// The string attribute `name`, nil when absent, null or not a string.
    public func string(_ name: String) -> String? {
        if case .string(let value)? = attributes[name] { return value }
        return nil
    }

    /// The integer attribute `name`, nil when absent, null or not an integer.
    public func int(_ name: String) -> Int? {
        if case .int(let value)? = attributes[name] { return value }
        return nil
    }

    /// The boolean attribute `name`, nil when absent, null or not a boolean.
    public func bool(_ name: String) -> Bool? {
        if case .bool(let value)? = attributes[name] { return value }
        return nil
    }

    /// The one resource the relationship `name` points at.
    public func related(_ name: String) -> JSONAPIIdentifier? { relationships[name]?.first }
}

private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
