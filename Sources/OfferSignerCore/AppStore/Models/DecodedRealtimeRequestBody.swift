/// The decoded `signedPayload` of a Retention Messaging real-time request: the App Store asks
/// which retention message to show a customer who is looking at their subscription and may
/// cancel it.
///
/// Unknown fields are ignored and the environment keeps Apple's raw value. `signedDate` is
/// Apple's: integer milliseconds since 1970.
///
/// [DecodedRealtimeRequestBody](https://developer.apple.com/documentation/retentionmessaging/decodedrealtimerequestbody)
public struct DecodedRealtimeRequestBody: Codable, Hashable, Sendable {
    /// The original transaction identifier of the customer's subscription.
    public var originalTransactionId: String
    /// The app's App Store identifier.
    public var appAppleId: Int64
    /// The auto-renewable subscription the customer is looking at.
    public var productId: String
    /// The device's locale, such as `en-US`.
    public var userLocale: String
    /// A UUID the App Store makes for each request; a repeated request carries the same one.
    public var requestIdentifier: String
    /// When the App Store signed the request, in milliseconds since 1970.
    public var signedDate: Int64
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String

    /// The environment, or nil when not known yet.
    public var environment: AppStoreEnvironment? { AppStoreEnvironment(rawValue: rawEnvironment) }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case originalTransactionId, appAppleId, productId, userLocale, requestIdentifier, signedDate
    }
}
