import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Webhook event IDs")
struct WebhookEventIdTests {
    @Test("an event's ID is a lowercase version 7 UUID, later events' sorting after earlier ones'")
    func timeOrdered() throws {
        let ids = (0..<50).map { index in
            if index == 25 { Thread.sleep(forTimeInterval: 0.002) }
            return WebhookEvent(type: .offerSigned, occurredAt: Date(), bundleId: nil, environment: nil, orderingKey: "u", data: [:]).id
        }
        for id in ids {
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && id.count == 36)
            #expect(Array(id)[14] == "7", "version 7: \(id)")
        }
        #expect(ids[25...].allSatisfy { later in ids[..<25].allSatisfy { $0 < later } }, "a later millisecond sorts after")
        #expect(Set(ids).count == ids.count)
    }
}
