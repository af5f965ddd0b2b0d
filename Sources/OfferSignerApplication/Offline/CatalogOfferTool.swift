import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer catalog create-offer|reprice-offer|delete-offer|price-points`: promotional
/// offers at App Store Connect changed as the admin routes change them (the same use case,
/// checks, records and catalog sync), with JSON on standard output.
public enum CatalogOfferTool {
    /// The subcommands.
    public static let commands: Set<String> = ["create-offer", "reprice-offer", "delete-offer", "price-points"]

    /// Runs `command` with `options`, printing the answer's JSON with `output`. Exit 0 when done,
    /// 2 when refused before anything was sent, 1 when Apple refused or failed.
    ///
    /// - Throws: a bad keys file or App Store Connect setting.
    public static func run(_ command: String, options: CommandLineOptions, settings: ServiceSettings, stores: OfflineStores,
                           actor: String, readFile: (String) throws -> [UInt8], output: (String) -> Void,
                           errors: (String) -> Void) throws -> Int32 {
        let configuration = try KeyConfiguration.load(path: settings.keys)
        let keyRing = KeyRing(configuration)
        let catalogs = AppStoreCatalogs(store: stores.catalogs, syncInterval: settings.catalogSyncInterval, clock: .system)
        let sync = CatalogSync(keyRing: keyRing, clients: try AppStoreConnectClients(settings: settings), store: stores.catalogs,
                               catalogs: catalogs, clock: .system, logger: .silent)
        let offers = AppStorePromotionalOffers(sync: sync, records: stores.stores.rules, offers: stores.offers, clock: .system, logger: .silent)
        let named = options["--bundle-id"]
        guard let app = configuration.app(bundleId: named) else {
            errors(named.map { "no app with bundleId '\($0)' is configured" } ?? "add --bundle-id (more than one app is configured)")
            return 2
        }
        func required(_ flag: String) throws(AppStoreOfferFailure) -> String {
            guard let value = options[flag] else { throw .invalid(["add \(flag)"]) }
            return value
        }
        func body<T: Decodable>(_ type: T.Type) throws -> T {
            guard let path = options["--file"] else { throw AppStoreOfferFailure.invalid(["add --file (a JSON body, - for standard input)"]) }
            let data = Data(try readFile(path))
            do {
                return try JSONCoding.decoder.decodeStrictly(T.self, from: data)
            } catch {
                throw AppStoreOfferFailure.invalid([DecodingErrorText.describe(error, subject: path)])
            }
        }
        do {
            let answer: any Encodable
            switch command {
            case "create-offer":
                var draft = try body(PromotionalOfferDraft.self)
                if let bundleId = draft.bundleId, bundleId != app.bundleId, named != nil {
                    throw AppStoreOfferFailure.invalid(["the file's bundleId '\(bundleId)' differs from --bundle-id '\(app.bundleId)'"])
                }
                guard let target = configuration.app(bundleId: draft.bundleId ?? app.bundleId) else {
                    throw AppStoreOfferFailure.unknownApp(draft.bundleId ?? "")
                }
                draft.bundleId = target.bundleId
                answer = try offers.create(draft, bundleId: target.bundleId, by: actor)
            case "reprice-offer":
                answer = try offers.replacePrices(bundleId: app.bundleId, productId: try required("--product-id"),
                                                  offerCode: try required("--offer-code"), pricing: try body(PromotionalOfferPricing.self), by: actor)
            case "delete-offer":
                answer = try offers.delete(bundleId: app.bundleId, productId: try required("--product-id"),
                                           offerCode: try required("--offer-code"), by: actor)
            default:
                let points = try offers.pricePoints(bundleId: app.bundleId, productId: try required("--product-id"),
                                                    territory: try required("--territory"))
                answer = ["pricePoints": points]
            }
            output(String(decoding: try JSONCoding.encoder.encode(answer), as: UTF8.self))
            return 0
        } catch let failure as AppStoreOfferFailure {
            errors(failure.description)
            switch failure {
            case .apple, .notRecorded: return 1
            default: return 2
            }
        }
    }
}
