import OfferSignerCore

/// A page of items with the cursor of the next page (`null` on the last).
struct Page<Item: Encodable>: Encodable {
    let items: [Item]
    @EncodedAsNull var nextCursor: String?
}
