import Foundation
@testable import OfferSignerCore
import Testing

/// The rules a promotional offer sent to Apple is checked against, and the regular prices'
/// split into those in force and those scheduled.
@Suite("Promotional offers at Apple: drafts, prices, regular prices")
struct PromotionalOfferPricingTests {
    @Test("customer prices as Apple writes them; the same amount however written")
    func customerPrices() {
        for accepted in ["0", "4.99", "480", "1000.5", "0.290", "999999999"] {
            #expect(PromotionalOfferPricing.isCustomerPrice(accepted), "\(accepted)")
        }
        for refused in ["", "-1", "+1", "04.99", "4.", ".99", "4.9999", "1e3", "4,99", " 4.99", "1000000000"] {
            #expect(!PromotionalOfferPricing.isCustomerPrice(refused), "\(refused)")
        }
        #expect(PromotionalOfferPricing.samePrice("4.9", "4.90") && PromotionalOfferPricing.samePrice("480", "480.0"))
        #expect(!PromotionalOfferPricing.samePrice("4.99", "4.98"))
    }

    @Test("exactly one pricing, the one the mode takes")
    func pricingByMode() {
        let usa = PromotionalOfferPricing.TerritoryPrice(territory: "USA", customerPrice: "4.99")
        #expect(PromotionalOfferPricing(prices: [usa]).problems(offerMode: "PAY_AS_YOU_GO").isEmpty)
        #expect(PromotionalOfferPricing(equalizeFrom: .init(territory: "USA", customerPrice: "4.99")).problems(offerMode: "PAY_UP_FRONT").isEmpty)
        #expect(PromotionalOfferPricing(territories: ["USA", "FRA"]).problems(offerMode: "FREE_TRIAL").isEmpty)
        #expect(!PromotionalOfferPricing().problems(offerMode: "PAY_AS_YOU_GO").isEmpty)
        #expect(!PromotionalOfferPricing(prices: [usa], equalizeFrom: .init(territory: "USA", customerPrice: "4.99"))
            .problems(offerMode: "PAY_AS_YOU_GO").isEmpty)
        #expect(!PromotionalOfferPricing(prices: [usa]).problems(offerMode: "FREE_TRIAL").isEmpty)
        #expect(!PromotionalOfferPricing(territories: ["USA"]).problems(offerMode: "PAY_UP_FRONT").isEmpty)
        #expect(PromotionalOfferPricing(prices: [usa, usa]).problems(offerMode: "PAY_AS_YOU_GO") == ["'prices' names a territory twice"])
        #expect(!PromotionalOfferPricing(territories: ["USA", "usa"]).problems(offerMode: "FREE_TRIAL").isEmpty)
    }

    @Test("a draft: offer code, name, duration, mode, periods")
    func draft() {
        func draft(code: String = "spring_half", name: String = "Half off", duration: String = "ONE_MONTH", mode: String = "PAY_AS_YOU_GO",
                   periods: Int = 3) -> PromotionalOfferDraft {
            PromotionalOfferDraft(bundleId: nil, productId: "pro", offerCode: code, name: name, duration: duration, offerMode: mode,
                                  numberOfPeriods: periods, pricing: PromotionalOfferPricing(prices: [.init(territory: "USA", customerPrice: "4.99")]))
        }
        #expect(draft().problems().isEmpty)
        // The offer code: what an offer rule's offerId may be (Apple documents no stricter set).
        #expect(draft(code: "a/b").problems() == ["'offerCode' must be 1–256 visible ASCII characters other than /"])
        #expect(draft(code: "a b").problems().count == 1 && draft(code: "").problems().count == 1
                && draft(code: String(repeating: "x", count: 257)).problems().count == 1)
        #expect(draft(code: "spring+half:50%").problems().isEmpty && draft(code: String(repeating: "x", count: 256)).problems().isEmpty)
        // The name: Apple publishes no limit for a promotional offer's (64 is an in-app purchase's); the service's bound is 1,000.
        #expect(draft(name: "   ").problems().count == 1 && draft(name: "a\u{202E}b").problems().count == 1)
        #expect(draft(name: String(repeating: "x", count: 65)).problems().isEmpty && draft(name: String(repeating: "é", count: 1_000)).problems().isEmpty)
        #expect(draft(name: String(repeating: "x", count: 1_001)).problems() == ["'name' must be 1–1000 characters, not only spaces"])
        #expect(draft(duration: "TEN_DAYS").problems().count == 1)
        #expect(draft(mode: "PAY_UP_FRONT").problems() == ["'numberOfPeriods' must be 1 for a PAY_UP_FRONT offer (its duration is the whole offer)"])
        #expect(draft(periods: 13).problems() == ["'numberOfPeriods' must be 1 to 12"])
    }

    @Test("regular prices: per territory the latest start on or before the day; later ones scheduled")
    func regularPrices() {
        let prices = [
            CatalogRegularPrice(territory: "USA", currency: "USD", customerPrice: "7.99", startDate: nil, pricePointId: "a"),
            CatalogRegularPrice(territory: "USA", currency: "USD", customerPrice: "12.99", startDate: "2027-03-01", pricePointId: "c"),
            CatalogRegularPrice(territory: "USA", currency: "USD", customerPrice: "9.99", startDate: "2026-06-01", pricePointId: "b"),
            CatalogRegularPrice(territory: "FRA", currency: "EUR", customerPrice: "9.99", startDate: nil, pricePointId: "d"),
            CatalogRegularPrice(territory: "JPN", currency: "JPY", customerPrice: "1500", startDate: "2027-01-15", pricePointId: "e"),
        ]
        let (current, scheduled) = CatalogRegularPrice.split(prices, on: "2027-01-15")
        #expect(current.map(\.pricePointId) == ["d", "e", "b"])
        #expect(scheduled.map(\.pricePointId) == ["c"])
    }
}
