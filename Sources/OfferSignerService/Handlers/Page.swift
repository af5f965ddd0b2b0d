import Foundation

/// A page of items with the cursor of the next page (nil on the last).
struct Page<Item: Encodable>: Encodable {
    let items: [Item]
    let nextCursor: String?

    enum Keys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(items, forKey: .items)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}
