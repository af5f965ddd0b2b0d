import OfferSignerCore
import OfferSignerStore

/// Why a Retention Messaging request got no answer (the App Store then shows its default
/// message). Nothing is recorded, so the App Store's repeat is answered afresh.
public enum RetentionRefusal: Error, Sendable {
    /// The signed payload did not verify, or is for an app or environment this service does
    /// not serve.
    case invalidSignedData(SignedDataError)
    /// The request was signed outside the accepted window around now (a replay of an old
    /// request, or a clock far off): `signedDate`, milliseconds since 1970.
    case outsideWindow(signedDate: Int64, maxAgeSeconds: Int)
    /// The identifier was answered before for another subscription of the app: a repeat must
    /// be the same request.
    case identifierReused(requestIdentifier: String)
    /// The offer's signature could not be made durable, so none was issued.
    case logUnavailable(reason: String)
    /// The app's key is in a hardware module that cannot sign now, so no offer was signed.
    case signingKeyUnavailable(reason: String)
    /// The database cannot be reached now (PostgreSQL down or restarting).
    case storeUnavailable(reason: String)
    /// Something that should not fail did (a store could not be read, OpenSSL failed).
    case internalFailure(any Error)

    /// A store's failure: unavailable when the database cannot be reached, internal otherwise.
    static func store(_ error: any Error) -> RetentionRefusal {
        if let unavailable = error as? DatabaseUnavailable { return .storeUnavailable(reason: unavailable.reason) }
        return .internalFailure(error)
    }
}
